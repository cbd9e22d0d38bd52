import type { BlockBuilder, ParagraphProperties } from "./block-builder.js";

/** Where the text of a group goes, or which table it describes. */
export type Destination = "text" | "title" | "info" | "fonttbl" | "stylesheet" | "style-entry" | "nested-table-properties" | "upr";

/** Everything RTF saves on "{" and restores on "}". */
export interface GroupState extends ParagraphProperties {
  destination: Destination;
  /** Where text goes in a "text" destination: the body or the footnotes. */
  builder: BlockBuilder;
  /** \ucN: fallback characters that follow each \uN. */
  unicodeSkip: number;
  font: number | undefined;
  /** \v: hidden text. */
  hidden: boolean;
}

export function initialGroupState(builder: BlockBuilder): GroupState {
  return { destination: "text", builder, unicodeSkip: 1, font: undefined, hidden: false, style: 0, outlineLevel: undefined, inTable: false, listId: 0, listLevel: 0 };
}

export function resetParagraph(state: GroupState): void {
  state.style = 0;
  state.outlineLevel = undefined;
  state.inTable = false;
  state.listId = 0;
  state.listLevel = 0;
}

/** Applies a paragraph or character property word; false when the word is not one of them. */
export function applyPropertyWord(state: GroupState, name: string, parameter: number | undefined): boolean {
  switch (name) {
    case "pard":
      resetParagraph(state);
      return true;
    case "plain":
      state.hidden = false;
      state.font = undefined;
      return true;
    case "s":
      state.style = parameter ?? 0;
      return true;
    case "outlinelevel":
      state.outlineLevel = parameter;
      return true;
    case "intbl":
      state.inTable = true;
      return true;
    case "itap":
      state.inTable = (parameter ?? 1) > 0;
      return true;
    case "ls":
      state.listId = parameter ?? 0;
      return true;
    case "ilvl":
      state.listLevel = parameter ?? 0;
      return true;
    case "v":
      state.hidden = parameter !== 0;
      return true;
    case "f":
      state.font = parameter;
      return true;
    case "uc":
      state.unicodeSkip = Math.max(0, parameter ?? 1);
      return true;
    default:
      return false;
  }
}
