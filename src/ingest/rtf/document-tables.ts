import { codePageForCharset, isKnownCodePage } from "./code-pages.js";

/** \fonttbl: which fonts carry their own code page (\fcharsetN, \cpgN). */
export interface FontTable {
  /** Handles a control word inside \fonttbl. */
  control(name: string, parameter: number | undefined, documentCodePage: number): void;
  codePageOf(font: number): number | undefined;
}

export function createFontTable(): FontTable {
  const codePages = new Map<number, number>();
  let entry = 0;
  return {
    control(name, parameter, documentCodePage) {
      if (name === "f") {
        entry = parameter ?? 0;
      } else if (name === "fcharset") {
        const codePage = codePageForCharset(parameter ?? 0, documentCodePage);
        if (codePage !== undefined && !codePages.has(entry)) codePages.set(entry, codePage);
      } else if (name === "cpg" && parameter !== undefined && isKnownCodePage(parameter)) {
        codePages.set(entry, parameter);
      }
    },
    codePageOf: (font) => codePages.get(font),
  };
}

/** \stylesheet: which paragraph styles are headings, by name ("heading 2") or outline level. */
export interface StyleSheet {
  /** Style number → heading level 1..9; filled as the style sheet is read. */
  readonly headingLevels: ReadonlyMap<number, number>;
  beginEntry(): void;
  control(name: string, parameter: number | undefined): void;
  appendName(text: string): void;
  endEntry(): void;
}

const BODY_TEXT_OUTLINE_LEVEL = 9;

export function createStyleSheet(): StyleSheet {
  const headingLevels = new Map<number, number>();
  let entry: { number: number; isParagraphStyle: boolean; outlineLevel: number | undefined; name: string } | undefined;
  return {
    headingLevels,
    beginEntry() {
      entry = { number: 0, isParagraphStyle: true, outlineLevel: undefined, name: "" };
    },
    control(name, parameter) {
      if (!entry) return;
      if (name === "s") entry.number = parameter ?? 0;
      else if (name === "cs" || name === "ds" || name === "ts") entry.isParagraphStyle = false;
      else if (name === "outlinelevel") entry.outlineLevel = parameter;
    },
    appendName(text) {
      if (entry) entry.name += text;
    },
    endEntry() {
      if (entry?.isParagraphStyle) {
        const name = entry.name.replace(/;\s*$/, "").trim();
        const named = /^heading\s*(\d)$/i.exec(name);
        const outline = entry.outlineLevel;
        const level = named ? Number(named[1]) : outline !== undefined && outline < BODY_TEXT_OUTLINE_LEVEL ? outline + 1 : undefined;
        if (level !== undefined && level > 0) headingLevels.set(entry.number, level);
      }
      entry = undefined;
    },
  };
}
