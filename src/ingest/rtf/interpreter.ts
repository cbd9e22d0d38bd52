import type { ParsedBlock } from "../../core/types.js";
import { type BlockBuilder, createBlockBuilder } from "./block-builder.js";
import { type ByteDecoder, createByteDecoder } from "./byte-decoder.js";
import { DEFAULT_CODE_PAGE, isKnownCodePage } from "./code-pages.js";
import { CHARACTER_SET_CODE_PAGES, SKIPPED_DESTINATIONS, SPECIAL_CHARACTERS, SPECIAL_SYMBOLS } from "./destinations.js";
import { createFontTable, createStyleSheet, type FontTable, type StyleSheet } from "./document-tables.js";
import { applyPropertyWord, type GroupState, initialGroupState, resetParagraph } from "./group-state.js";
import { createRtfTokenizer, type RtfToken, type RtfTokenizer } from "./tokenizer.js";

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

/** Everything the interpreter knows while it reads: document tables, output and group stack. */
interface ReaderContext {
  data: Uint8Array;
  tokenizer: RtfTokenizer;
  fonts: FontTable;
  styles: StyleSheet;
  body: BlockBuilder;
  footnotes: BlockBuilder;
  bytes: ByteDecoder;
  warnings: Set<string>;
  titleParts: string[];
  titleTaken: boolean;
  documentCodePage: number;
  defaultFont: number | undefined;
  stack: GroupState[];
  state: GroupState;
  /** Depth inside a group being skipped; 0 when reading. */
  skipDepth: number;
  /** True until the first control word or text of a group, which may name a destination. */
  atGroupStart: boolean;
  /** The group started with \*: an unknown destination in it is skipped. */
  ignorable: boolean;
  /** Fallback characters after \uN still to skip. */
  fallbackToSkip: number;
  done: boolean;
}

/**
 * An iterative RTF interpreter: an explicit group stack instead of recursion, so deep nesting
 * or a huge file costs heap, not call stack. It keeps document text, footnotes (appended after
 * the body), the \info title, and the font and style tables needed to decode and classify it.
 */
export function createRtfReader(input: Uint8Array): RtfReader {
  const reader = createContext(input);
  return {
    step(byteBudget) {
      const stopAt = Math.min(reader.data.length, reader.tokenizer.position + byteBudget);
      while (!reader.done && reader.tokenizer.position < stopAt) handleToken(reader, reader.tokenizer.next());
      if (reader.tokenizer.position >= reader.data.length) reader.done = true;
      if (reader.done) reader.bytes.flush();
      return reader.done;
    },
    result() {
      const blocks = [...reader.body.finish(), ...reader.footnotes.finish()];
      const title = reader.titleParts.join("").replace(/\s+/g, " ").trim();
      return { title: title === "" ? undefined : title, blocks, warnings: [...reader.warnings] };
    },
  };
}

function createContext(input: Uint8Array): ReaderContext {
  // a byte-order mark or blank lines before the first group are not text
  const firstBrace = input.indexOf(0x7b);
  const data = firstBrace > 0 ? input.subarray(firstBrace) : input;
  const styles = createStyleSheet();
  const body = createBlockBuilder(styles.headingLevels);
  const state = initialGroupState(body);
  const reader: ReaderContext = {
    data,
    tokenizer: createRtfTokenizer(data),
    fonts: createFontTable(),
    styles,
    body,
    footnotes: createBlockBuilder(styles.headingLevels),
    // replaced below: the decoder's output goes through the reader it belongs to
    bytes: createByteDecoder(() => undefined),
    warnings: new Set<string>(),
    titleParts: [],
    titleTaken: false,
    documentCodePage: DEFAULT_CODE_PAGE,
    defaultFont: undefined,
    stack: [state],
    state,
    skipDepth: 0,
    atGroupStart: false,
    ignorable: false,
    fallbackToSkip: 0,
    done: false,
  };
  reader.bytes = createByteDecoder((text) => emitText(reader, text));
  return reader;
}

function handleToken(reader: ReaderContext, token: RtfToken): void {
  if (token.kind === "end") {
    reader.done = true;
    return;
  }
  if (reader.skipDepth > 0) {
    if (token.kind === "group-open") reader.skipDepth++;
    else if (token.kind === "group-close") reader.skipDepth--;
    return;
  }
  if (token.kind === "byte") {
    reader.atGroupStart = false;
    if (reader.fallbackToSkip > 0) reader.fallbackToSkip--;
    else addByte(reader, token.value);
    return;
  }
  if (token.kind === "text") {
    if (reader.atGroupStart && reader.data.subarray(token.start, token.end).some((byte) => byte > 0x20)) reader.atGroupStart = false;
    readText(reader, token.start, token.end);
    return;
  }
  reader.bytes.flush();
  switch (token.kind) {
    case "group-open":
      reader.fallbackToSkip = 0;
      openGroup(reader);
      return;
    case "group-close":
      reader.fallbackToSkip = 0;
      closeGroup(reader);
      return;
    case "word":
      handleWord(reader, token.name, token.parameter);
      return;
    case "symbol":
      handleSymbol(reader, token.character);
      return;
  }
}

/** The code page of the current font, else of the document. */
function codePageNow(reader: ReaderContext): number {
  const font = reader.state.font ?? reader.defaultFont;
  return (font === undefined ? undefined : reader.fonts.codePageOf(font)) ?? reader.documentCodePage;
}

function addByte(reader: ReaderContext, byte: number): void {
  reader.bytes.add(byte, codePageNow(reader));
}

/** Sends decoded text to wherever the current group's destination collects it. */
function emitText(reader: ReaderContext, text: string): void {
  const { state } = reader;
  switch (state.destination) {
    case "text":
      if (!state.hidden) state.builder.appendText(text, state);
      return;
    case "title":
      reader.titleParts.push(text);
      return;
    case "style-entry":
      reader.styles.appendName(text);
      return;
    default:
      return;
  }
}

/** Plain bytes between control words: ASCII runs go out whole, 8-bit bytes through the decoder. */
function readText(reader: ReaderContext, start: number, end: number): void {
  const { data } = reader;
  let index = start;
  while (index < end) {
    const byte = data[index] ?? 0;
    if (byte === 0x0d || byte === 0x0a || byte === 0x00) {
      index++;
    } else if (reader.fallbackToSkip > 0) {
      reader.fallbackToSkip--;
      index++;
    } else if (byte >= 0x80 || reader.bytes.awaitingTrailByte) {
      addByte(reader, byte);
      index++;
    } else {
      let runEnd = index;
      while (runEnd < end) {
        const next = data[runEnd] ?? 0;
        if (next >= 0x80 || next === 0x0d || next === 0x0a || next === 0x00) break;
        runEnd++;
      }
      reader.bytes.flush();
      emitText(reader, Buffer.from(data.buffer, data.byteOffset + index, runEnd - index).toString("latin1"));
      index = runEnd;
    }
  }
}

function openGroup(reader: ReaderContext): void {
  if (reader.stack.length >= MAX_GROUP_DEPTH) {
    reader.warnings.add(`text nested deeper than ${MAX_GROUP_DEPTH} groups was skipped`);
    reader.skipDepth = 1;
    return;
  }
  const parent = reader.state;
  reader.state = { ...parent };
  reader.stack.push(reader.state);
  if (parent.destination === "stylesheet") {
    reader.state.destination = "style-entry";
    reader.styles.beginEntry();
  }
  reader.atGroupStart = true;
  reader.ignorable = false;
}

function closeGroup(reader: ReaderContext): void {
  if (reader.stack.length <= 1) return; // a stray closing brace
  const closing = reader.stack.pop() as GroupState;
  reader.state = reader.stack[reader.stack.length - 1] as GroupState;
  if (closing.destination === "style-entry" && reader.state.destination === "stylesheet") reader.styles.endEntry();
  if (closing.builder === reader.footnotes && reader.state.builder !== reader.footnotes) reader.footnotes.endParagraph(closing);
  if (closing.destination === "title") reader.titleTaken = true;
}

function skipThisGroup(reader: ReaderContext): void {
  reader.stack.pop();
  reader.state = reader.stack[reader.stack.length - 1] as GroupState;
  reader.skipDepth = 1;
}

/** The first control word of a group may name a destination; returns true when it did. */
function enterDestination(reader: ReaderContext, name: string): boolean {
  const { state } = reader;
  const destination = state.destination;
  if (destination === "info") {
    if (name === "title" && !reader.titleTaken) state.destination = "title";
    else skipThisGroup(reader);
    return true;
  }
  if (destination === "upr" && name === "ud") {
    state.destination = "text";
    return true;
  }
  if (destination !== "text") {
    // Inside a table or a skipped-text group only \* groups need attention: they are skipped.
    if (reader.ignorable) skipThisGroup(reader);
    return reader.ignorable;
  }
  switch (name) {
    case "fonttbl":
    case "stylesheet":
    case "info":
    case "upr":
      state.destination = name;
      return true;
    case "footnote":
      state.builder = reader.footnotes;
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
      if (reader.ignorable || SKIPPED_DESTINATIONS.has(name)) {
        skipThisGroup(reader);
        return true;
      }
      return false;
  }
}

/** Control symbols: \* marks an ignorable destination, others are characters (\~, \-, \_). */
function handleSymbol(reader: ReaderContext, character: string): void {
  if (character === "*" && reader.atGroupStart) {
    reader.ignorable = true;
    return;
  }
  reader.atGroupStart = false;
  if (reader.fallbackToSkip > 0) {
    reader.fallbackToSkip--;
    return;
  }
  emitText(reader, SPECIAL_SYMBOLS.get(character) ?? "");
}

/** Dispatches a control word: destinations first, then document settings, then by destination. */
function handleWord(reader: ReaderContext, name: string, parameter: number | undefined): void {
  if (reader.fallbackToSkip > 0 && name !== "bin") {
    reader.fallbackToSkip--;
    return;
  }
  if (reader.atGroupStart) {
    reader.atGroupStart = false;
    if (enterDestination(reader, name)) return;
  }
  if (applyDocumentWord(reader, name, parameter)) return;
  switch (reader.state.destination) {
    case "fonttbl":
      reader.fonts.control(name, parameter, reader.documentCodePage);
      return;
    case "style-entry":
      reader.styles.control(name, parameter);
      return;
    case "nested-table-properties":
      if (name === "nestrow") reader.state.builder.endNestedRow();
      return;
    default:
      applyTextWord(reader, name, parameter);
  }
}

/** Code page, default font and \uN characters, whatever the destination; true when handled. */
function applyDocumentWord(reader: ReaderContext, name: string, parameter: number | undefined): boolean {
  switch (name) {
    case "ansicpg":
      if (parameter !== undefined && isKnownCodePage(parameter)) reader.documentCodePage = parameter;
      else reader.warnings.add(`unknown code page ${String(parameter)}; 8-bit characters were read as Western (1252)`);
      return true;
    case "deff":
      reader.defaultFont = parameter;
      return true;
    case "u":
      if (parameter === undefined) return true;
      emitText(reader, String.fromCharCode(parameter < 0 ? parameter + 65_536 : parameter & 0xffff));
      reader.fallbackToSkip = reader.state.unicodeSkip;
      return true;
  }
  const characterSet = CHARACTER_SET_CODE_PAGES.get(name);
  if (characterSet === undefined) return false;
  reader.documentCodePage = characterSet;
  return true;
}

/** Special characters, character and paragraph properties, and paragraph and table breaks. */
function applyTextWord(reader: ReaderContext, name: string, parameter: number | undefined): void {
  const special = SPECIAL_CHARACTERS.get(name);
  if (special !== undefined) {
    emitText(reader, special);
    return;
  }
  const { state } = reader;
  if (applyPropertyWord(state, name, parameter)) return;
  const inText = state.destination === "text";
  switch (name) {
    case "par":
    case "sect":
    case "page":
    case "column":
      if (inText) state.builder.endParagraph(state);
      else if (state.destination === "title") reader.titleParts.push(" ");
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
}
