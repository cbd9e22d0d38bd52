import type { ParsedBlock } from "../../core/types.js";
import { createBlockBuilder } from "./block-builder.js";
import { createByteDecoder } from "./byte-decoder.js";
import { DEFAULT_CODE_PAGE, isKnownCodePage } from "./code-pages.js";
import { CHARACTER_SET_CODE_PAGES, SKIPPED_DESTINATIONS, SPECIAL_CHARACTERS, SPECIAL_SYMBOLS } from "./destinations.js";
import { createFontTable, createStyleSheet } from "./document-tables.js";
import { applyPropertyWord, type GroupState, initialGroupState, resetParagraph } from "./group-state.js";
import { createRtfTokenizer, type RtfToken } from "./tokenizer.js";

/** Deeper groups are skipped: real documents nest a few dozen levels at most. */
export const MAX_GROUP_DEPTH = 1_000;

export interface RtfContent {
  title: string | undefined;
  blocks: ParsedBlock[];
  warnings: string[];
}

export interface RtfReader {
  /** Reads on until about `byteBudget` more bytes are consumed; true when the input is done. */
  step(byteBudget: number): boolean;
  result(): RtfContent;
}

/**
 * An iterative RTF interpreter: an explicit group stack instead of recursion, so deep nesting
 * or a huge file costs heap, not call stack. It keeps document text, footnotes (appended after
 * the body), the \info title, and the font and style tables needed to decode and classify it.
 */
export function createRtfReader(input: Uint8Array): RtfReader {
  // a byte-order mark or blank lines before the first group are not text
  const firstBrace = input.indexOf(0x7b);
  const data = firstBrace > 0 ? input.subarray(firstBrace) : input;
  const tokenizer = createRtfTokenizer(data);
  const fonts = createFontTable();
  const styles = createStyleSheet();
  const body = createBlockBuilder(styles.headingLevels);
  const footnotes = createBlockBuilder(styles.headingLevels);
  const warnings = new Set<string>();
  const titleParts: string[] = [];
  let titleTaken = false;
  let documentCodePage = DEFAULT_CODE_PAGE;
  let defaultFont: number | undefined;

  const stack: GroupState[] = [initialGroupState(body)];
  let state = stack[0] as GroupState;
  let skipDepth = 0;
  let atGroupStart = false;
  let ignorable = false;
  let fallbackToSkip = 0;
  let done = false;

  const codePageNow = (): number => {
    const font = state.font ?? defaultFont;
    return (font === undefined ? undefined : fonts.codePageOf(font)) ?? documentCodePage;
  };

  const emitText = (text: string) => {
    switch (state.destination) {
      case "text":
        if (!state.hidden) state.builder.appendText(text, state);
        return;
      case "title":
        titleParts.push(text);
        return;
      case "style-entry":
        styles.appendName(text);
        return;
      default:
        return;
    }
  };

  const bytes = createByteDecoder(emitText);
  const flushBytes = () => bytes.flush();
  const addByte = (byte: number) => bytes.add(byte, codePageNow());

  const readText = (start: number, end: number) => {
    let index = start;
    while (index < end) {
      const byte = data[index] ?? 0;
      if (byte === 0x0d || byte === 0x0a || byte === 0x00) {
        index++;
      } else if (fallbackToSkip > 0) {
        fallbackToSkip--;
        index++;
      } else if (byte >= 0x80 || bytes.awaitingTrailByte) {
        addByte(byte);
        index++;
      } else {
        let runEnd = index;
        while (runEnd < end) {
          const next = data[runEnd] ?? 0;
          if (next >= 0x80 || next === 0x0d || next === 0x0a || next === 0x00) break;
          runEnd++;
        }
        flushBytes();
        emitText(Buffer.from(data.buffer, data.byteOffset + index, runEnd - index).toString("latin1"));
        index = runEnd;
      }
    }
  };

  const openGroup = () => {
    if (stack.length >= MAX_GROUP_DEPTH) {
      warnings.add(`text nested deeper than ${MAX_GROUP_DEPTH} groups was skipped`);
      skipDepth = 1;
      return;
    }
    const parent = state;
    state = { ...parent };
    stack.push(state);
    if (parent.destination === "stylesheet") {
      state.destination = "style-entry";
      styles.beginEntry();
    }
    atGroupStart = true;
    ignorable = false;
  };

  const closeGroup = () => {
    if (stack.length <= 1) return; // a stray closing brace
    const closing = stack.pop() as GroupState;
    state = stack[stack.length - 1] as GroupState;
    if (closing.destination === "style-entry" && state.destination === "stylesheet") styles.endEntry();
    if (closing.builder === footnotes && state.builder !== footnotes) footnotes.endParagraph(closing);
    if (closing.destination === "title") titleTaken = true;
  };

  const skipThisGroup = () => {
    stack.pop();
    state = stack[stack.length - 1] as GroupState;
    skipDepth = 1;
  };

  /** The first control word of a group may name a destination; returns true when it did. */
  const enterDestination = (name: string): boolean => {
    const destination = state.destination;
    if (destination === "info") {
      if (name === "title" && !titleTaken) state.destination = "title";
      else skipThisGroup();
      return true;
    }
    if (destination === "upr" && name === "ud") {
      state.destination = "text";
      return true;
    }
    if (destination !== "text") {
      // Inside a table or a skipped-text group only \* groups need attention: they are skipped.
      if (ignorable) skipThisGroup();
      return ignorable;
    }
    switch (name) {
      case "fonttbl":
      case "stylesheet":
      case "info":
      case "upr":
        state.destination = name;
        return true;
      case "footnote":
        state.builder = footnotes;
        resetParagraph(state);
        return true;
      case "nesttableprops":
        state.destination = "nested-table-properties";
        return true;
      case "fldrslt":
      case "result":
      case "ud":
        return true;
      default:
        if (ignorable || SKIPPED_DESTINATIONS.has(name)) {
          skipThisGroup();
          return true;
        }
        return false;
    }
  };

  const handleWord = (name: string, parameter: number | undefined) => {
    if (fallbackToSkip > 0 && name !== "bin") {
      fallbackToSkip--;
      return;
    }
    if (atGroupStart) {
      atGroupStart = false;
      if (enterDestination(name)) return;
    }
    switch (name) {
      case "ansicpg":
        if (parameter !== undefined && isKnownCodePage(parameter)) documentCodePage = parameter;
        else warnings.add(`unknown code page ${String(parameter)}; 8-bit characters were read as Western (1252)`);
        return;
      case "deff":
        defaultFont = parameter;
        return;
      case "u":
        if (parameter === undefined) return;
        emitText(String.fromCharCode(parameter < 0 ? parameter + 65_536 : parameter & 0xffff));
        fallbackToSkip = state.unicodeSkip;
        return;
    }
    const characterSet = CHARACTER_SET_CODE_PAGES.get(name);
    if (characterSet !== undefined) {
      documentCodePage = characterSet;
      return;
    }
    if (state.destination === "fonttbl") {
      fonts.control(name, parameter, documentCodePage);
      return;
    }
    if (state.destination === "style-entry") {
      styles.control(name, parameter);
      return;
    }
    if (state.destination === "nested-table-properties") {
      if (name === "nestrow") state.builder.endNestedRow();
      return;
    }
    applyFormatting(name, parameter);
  };

  const applyFormatting = (name: string, parameter: number | undefined) => {
    const special = SPECIAL_CHARACTERS.get(name);
    if (special !== undefined) {
      emitText(special);
      return;
    }
    if (applyPropertyWord(state, name, parameter)) return;
    const inText = state.destination === "text";
    switch (name) {
      case "par":
      case "sect":
      case "page":
      case "column":
        if (inText) state.builder.endParagraph(state);
        else if (state.destination === "title") titleParts.push(" ");
        return;
      case "cell":
        if (inText) state.builder.endCell(state);
        return;
      case "row":
        if (inText) state.builder.endRow(state);
        return;
      case "nestcell":
        if (inText) state.builder.endNestedCell(state);
        return;
      case "nestrow":
        if (inText) state.builder.endNestedRow();
        return;
      default:
        return;
    }
  };

  const handleToken = (token: RtfToken) => {
    if (token.kind === "end") {
      done = true;
      return;
    }
    if (skipDepth > 0) {
      if (token.kind === "group-open") skipDepth++;
      else if (token.kind === "group-close") skipDepth--;
      return;
    }
    if (token.kind === "byte") {
      atGroupStart = false;
      if (fallbackToSkip > 0) fallbackToSkip--;
      else addByte(token.value);
      return;
    }
    if (token.kind === "text") {
      if (atGroupStart && data.subarray(token.start, token.end).some((byte) => byte > 0x20)) atGroupStart = false;
      readText(token.start, token.end);
      return;
    }
    flushBytes();
    switch (token.kind) {
      case "group-open":
        fallbackToSkip = 0;
        openGroup();
        return;
      case "group-close":
        fallbackToSkip = 0;
        closeGroup();
        return;
      case "word":
        handleWord(token.name, token.parameter);
        return;
      case "symbol":
        if (token.character === "*" && atGroupStart) {
          ignorable = true;
          return;
        }
        atGroupStart = false;
        if (fallbackToSkip > 0) {
          fallbackToSkip--;
          return;
        }
        emitText(SPECIAL_SYMBOLS.get(token.character) ?? "");
        return;
    }
  };

  return {
    step(byteBudget) {
      const stopAt = Math.min(data.length, tokenizer.position + byteBudget);
      while (!done && tokenizer.position < stopAt) handleToken(tokenizer.next());
      if (tokenizer.position >= data.length) done = true;
      if (done) flushBytes();
      return done;
    },
    result() {
      const blocks = [...body.finish(), ...footnotes.finish()];
      const title = titleParts.join("").replace(/\s+/g, " ").trim();
      return { title: title === "" ? undefined : title, blocks, warnings: [...warnings] };
    },
  };
}
