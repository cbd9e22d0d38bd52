import { ChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { detectOfficeEncryption } from "../office-crypto.js";
import { readOle, readStream } from "../office-crypto/ole.js";
import { throwIfAborted } from "../zip.js";

/**
 * PowerPoint 97-2003 (.ppt, .pps, .pot): a small reader of the binary format ([MS-PPT]). No
 * maintained npm library extracts its text, so this walks the records itself: the persist
 * directory (from the "Current User" stream's newest edit) maps each slide in the document's
 * slide list, in presentation order, to its Slide container, whose text atoms (TextCharsAtom,
 * TextBytesAtom) are the slide's text; a title placeholder's text becomes the slide's heading
 * and speaker notes follow the slide. Every step is bounded (record counts, nesting depth,
 * offsets checked against the stream), so a damaged file is reported, never looped on.
 */
const RECORD_HEADER_BYTES = 8;
const CONTAINER_VERSION = 0xf;
const MAX_DEPTH = 32;
const MAX_EDITS = 1_000;
const MAX_RECORDS = 1_000_000;

const RT_DOCUMENT = 0x03e8;
const RT_SLIDE = 0x03ee;
const RT_NOTES = 0x03f0;
const RT_NOTES_ATOM = 0x03f1;
const RT_SLIDE_PERSIST_ATOM = 0x03f3;
const RT_TEXT_HEADER_ATOM = 0x0f9f;
const RT_TEXT_CHARS_ATOM = 0x0fa0;
const RT_TEXT_BYTES_ATOM = 0x0fa8;
const RT_SLIDE_LIST_WITH_TEXT = 0x0ff0;
const RT_USER_EDIT_ATOM = 0x0ff5;
const RT_PERSIST_DIRECTORY_ATOM = 0x1772;
/** SlideListWithText instances: the slides, and the notes pages. */
const SLIDE_LIST_SLIDES = 0;
const SLIDE_LIST_NOTES = 2;
/** TextHeaderAtom text types that are a slide's title. */
const TITLE_TEXT_TYPES = new Set([0, 6]);

interface RecordHeader {
  instance: number;
  version: number;
  type: number;
  length: number;
  /** Offset of the record's body. */
  body: number;
}

interface SlideText {
  text: string;
  title: boolean;
}

export const pptParser: Parser = {
  name: "ppt",
  extensions: [".ppt", ".pps", ".pot"],
  async parse(input: ParseInput): Promise<ParsedDocument> {
    const container = readOle(input.data);
    if (!container) throw new ChunkpadError("PARSE_MALFORMED", "not a PowerPoint 97-2003 file (no compound-file structure); check that the file is what its extension says");
    if (detectOfficeEncryption(input.data) !== null) {
      throw new ChunkpadError("PARSE_ENCRYPTED", "encrypted PowerPoint 97-2003 presentation, which Chunkpad cannot decrypt; save an unprotected copy (or save it as .pptx with a password, and give that password)");
    }
    const stream = readStream(container, "PowerPoint Document");
    if (!stream) throw new ChunkpadError("PARSE_MALFORMED", "an Office file, but not a PowerPoint presentation (no \"PowerPoint Document\" stream); give it its real extension");
    const reader = createRecordReader(stream);
    const currentUser = readStream(container, "Current User");
    const persist = currentUser ? readPersistDirectory(reader, currentUser) : undefined;
    const documentOffset = persist?.directory.get(persist.documentId);
    if (!persist || documentOffset === undefined || reader.header(documentOffset)?.type !== RT_DOCUMENT) {
      return scanWithoutStructure(reader, input);
    }

    const slides: Array<{ persistId: number; slideId: number; listTexts: SlideText[] }> = [];
    const notesBySlideId = new Map<number, string[]>();
    const notesPersistIds: number[] = [];
    reader.children(documentOffset, (list) => {
      if (list.type !== RT_SLIDE_LIST_WITH_TEXT) return;
      let pendingTitle = false;
      reader.children(list.body - RECORD_HEADER_BYTES, (record) => {
        if (record.type === RT_SLIDE_PERSIST_ATOM && record.length >= 16) {
          const persistId = reader.uint32(record.body);
          if (list.instance === SLIDE_LIST_SLIDES) slides.push({ persistId, slideId: reader.uint32(record.body + 12), listTexts: [] });
          else if (list.instance === SLIDE_LIST_NOTES) notesPersistIds.push(persistId);
        } else if (record.type === RT_TEXT_HEADER_ATOM && record.length >= 4) {
          pendingTitle = TITLE_TEXT_TYPES.has(reader.uint32(record.body));
        } else if (list.instance === SLIDE_LIST_SLIDES && (record.type === RT_TEXT_CHARS_ATOM || record.type === RT_TEXT_BYTES_ATOM)) {
          slides[slides.length - 1]?.listTexts.push({ text: reader.text(record), title: pendingTitle });
        }
      });
    });

    for (const persistId of notesPersistIds) {
      const offset = persist.directory.get(persistId);
      if (offset === undefined || reader.header(offset)?.type !== RT_NOTES) continue;
      let slideId: number | undefined;
      reader.children(offset, (record) => {
        if (record.type === RT_NOTES_ATOM && record.length >= 4) slideId = reader.uint32(record.body);
      });
      const texts = textsIn(reader, offset).map((entry) => entry.text);
      if (slideId !== undefined && texts.length > 0) notesBySlideId.set(slideId, texts);
    }

    const blocks: ParsedBlock[] = [];
    slides.forEach((slide, index) => {
      throwIfAborted(input.signal);
      const number = index + 1;
      const offset = persist.directory.get(slide.persistId);
      const texts = offset !== undefined && reader.header(offset)?.type === RT_SLIDE ? textsIn(reader, offset) : [];
      const seen = new Set<string>();
      for (const entry of [...texts, ...slide.listTexts]) {
        const text = cleanText(entry.text);
        if (text === "" || seen.has(text)) continue;
        seen.add(text);
        blocks.push(entry.title ? { kind: "heading", text: text.replace(/\n+/g, " "), level: 1, slide: number } : { kind: "paragraph", text, slide: number });
      }
      for (const note of notesBySlideId.get(slide.slideId) ?? []) {
        const text = cleanText(note);
        if (text !== "" && !seen.has(text)) blocks.push({ kind: "paragraph", text, slide: number });
      }
    });
    if (blocks.length === 0) throw new ChunkpadError("PARSE_EMPTY", "The presentation has no text (its slides hold only pictures or are empty); there is nothing to index.");
    const title = blocks.find((block) => block.kind === "heading")?.text;
    return { ...(title ? { title } : {}), blocks, pageCount: slides.length, warnings: [] };
  },
};

/** The text atoms below a container, each marked when a TextHeaderAtom says it is a title. */
function textsIn(reader: RecordReader, offset: number): SlideText[] {
  const texts: SlideText[] = [];
  let title = false;
  reader.descendants(offset, (record) => {
    if (record.type === RT_TEXT_HEADER_ATOM && record.length >= 4) title = TITLE_TEXT_TYPES.has(reader.uint32(record.body));
    else if (record.type === RT_TEXT_CHARS_ATOM || record.type === RT_TEXT_BYTES_ATOM) {
      texts.push({ text: reader.text(record), title });
      title = false;
    }
  });
  return texts;
}

/** A file whose edit chain cannot be followed still gives its text, without slide numbers. */
function scanWithoutStructure(reader: RecordReader, input: ParseInput): ParsedDocument {
  const blocks: ParsedBlock[] = [];
  const seen = new Set<string>();
  reader.topLevel((record) => {
    throwIfAborted(input.signal);
    reader.descendants(record.body - RECORD_HEADER_BYTES, (inner) => {
      if (inner.type !== RT_TEXT_CHARS_ATOM && inner.type !== RT_TEXT_BYTES_ATOM) return;
      const text = cleanText(reader.text(inner));
      if (text !== "" && !seen.has(text)) {
        seen.add(text);
        blocks.push({ kind: "paragraph", text });
      }
    });
  });
  if (blocks.length === 0) throw new ChunkpadError("PARSE_MALFORMED", "damaged PowerPoint file (its slide list cannot be read and no text was found); open it in PowerPoint and save it again");
  return { blocks, warnings: ["the presentation's slide list could not be read; its text is indexed without slide numbers"] };
}

/** PowerPoint ends paragraphs with \r and lines with \v; a few control characters mark fields. */
function cleanText(text: string): string {
  return text
    .replace(/\r\n?|\v/g, "\n")
    // eslint-disable-next-line no-control-regex -- field markers and other control characters are not text
    .replace(/[\u0000-\u0008\u000b-\u001f]/g, "")
    .split("\n")
    .map((line) => line.replace(/[ \t\u00a0]+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n");
}

interface PersistDirectory {
  directory: Map<number, number>;
  documentId: number;
}

/** Follows the edit chain from the newest UserEditAtom back; newer entries win. */
function readPersistDirectory(reader: RecordReader, currentUser: Uint8Array): PersistDirectory | undefined {
  if (currentUser.length < 20) return undefined;
  let editOffset = new DataView(currentUser.buffer, currentUser.byteOffset, currentUser.byteLength).getUint32(16, true);
  const directory = new Map<number, number>();
  let documentId: number | undefined;
  const visited = new Set<number>();
  for (let edit = 0; edit < MAX_EDITS && editOffset !== 0 && !visited.has(editOffset); edit++) {
    visited.add(editOffset);
    const header = reader.header(editOffset);
    if (header?.type !== RT_USER_EDIT_ATOM || header.length < 20) return documentId === undefined ? undefined : { directory, documentId };
    documentId ??= reader.uint32(header.body + 16);
    const directoryHeader = reader.header(reader.uint32(header.body + 12));
    if (directoryHeader?.type === RT_PERSIST_DIRECTORY_ATOM) {
      let position = directoryHeader.body;
      const end = directoryHeader.body + directoryHeader.length;
      while (position + 4 <= end) {
        const entry = reader.uint32(position);
        const first = entry & 0xfffff;
        const count = entry >>> 20;
        position += 4;
        for (let index = 0; index < count && position + 4 <= end; index++, position += 4) {
          if (!directory.has(first + index)) directory.set(first + index, reader.uint32(position));
        }
      }
    }
    editOffset = reader.uint32(header.body + 8);
  }
  return documentId === undefined ? undefined : { directory, documentId };
}

interface RecordReader {
  header(offset: number): RecordHeader | undefined;
  uint32(offset: number): number;
  text(record: RecordHeader): string;
  /** Calls back for each direct child of the container at `offset`. */
  children(offset: number, visit: (record: RecordHeader) => void): void;
  /** Calls back for every atom below the container at `offset`, in stream order. */
  descendants(offset: number, visit: (record: RecordHeader) => void): void;
  topLevel(visit: (record: RecordHeader) => void): void;
}

function createRecordReader(stream: Uint8Array): RecordReader {
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  let budget = MAX_RECORDS;

  const header = (offset: number): RecordHeader | undefined => {
    if (offset < 0 || offset + RECORD_HEADER_BYTES > stream.length) return undefined;
    const versionAndInstance = view.getUint16(offset, true);
    const length = view.getUint32(offset + 4, true);
    const body = offset + RECORD_HEADER_BYTES;
    if (body + length > stream.length) return undefined;
    return { version: versionAndInstance & 0xf, instance: versionAndInstance >>> 4, type: view.getUint16(offset + 2, true), length, body };
  };

  const eachIn = (start: number, end: number, visit: (record: RecordHeader) => void): void => {
    for (let position = start; position + RECORD_HEADER_BYTES <= end && budget-- > 0; ) {
      const record = header(position);
      if (!record || record.body + record.length > end) return;
      visit(record);
      position = record.body + record.length;
    }
  };

  const children = (offset: number, visit: (record: RecordHeader) => void): void => {
    const container = header(offset);
    if (!container || container.version !== CONTAINER_VERSION) return;
    eachIn(container.body, container.body + container.length, visit);
  };

  const descendants = (offset: number, visit: (record: RecordHeader) => void, depth = 0): void => {
    if (depth > MAX_DEPTH) return;
    children(offset, (record) => {
      if (record.version === CONTAINER_VERSION) descendants(record.body - RECORD_HEADER_BYTES, visit, depth + 1);
      else visit(record);
    });
  };

  return {
    header,
    uint32: (offset) => (offset >= 0 && offset + 4 <= stream.length ? view.getUint32(offset, true) : 0),
    text(record) {
      const bytes = stream.subarray(record.body, record.body + record.length);
      return record.type === RT_TEXT_CHARS_ATOM ? Buffer.from(bytes).toString("utf16le") : Buffer.from(bytes).toString("latin1");
    },
    children,
    descendants,
    topLevel: (visit) => eachIn(0, stream.length, visit),
  };
}
