import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as PdfjsModule from "pdfjs-dist/legacy/build/pdf.mjs";
import { ChunkpadError, describeError, isChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { OCR_OFF_HINT } from "../ocr.js";
import { ocrPdfPages } from "./pdf-ocr.js";
import { layoutPage, type PositionedText } from "./pdf-layout.js";
import { passwordCandidates } from "./pdf-password.js";

type Pdfjs = typeof PdfjsModule;
type PdfDocument = Awaited<ReturnType<Pdfjs["getDocument"]>["promise"]>;

/**
 * PDF through pdf.js (legacy build, which runs in Node; its "fake worker" runs in this
 * thread, so the caller's worker and time limit bound it). Page by page, releasing each
 * page, so memory stays flat on long documents. Blocks carry their 1-based page.
 */
export const pdfParser: Parser = {
  name: "pdf",
  extensions: [".pdf"],
  parse: parsePdf,
};

/** How often the document's shared caches (fonts, images) are released, in pages. */
const CLEANUP_EVERY_PAGES = 50;
/** Text-less pages inspected for images to tell a scan from an empty document. */
const MAX_PAGES_CHECKED_FOR_IMAGES = 3;

/** The module pdf.js loads as its "fake worker" (in this thread) on the first document; it ships no types. */
const PDFJS_WORKER_MODULE: string = "pdfjs-dist/legacy/build/pdf.worker.mjs";

let pdfjsModule: Promise<Pdfjs> | undefined;
const loadPdfjs = (): Promise<Pdfjs> => (pdfjsModule ??= importPdfjs());

/**
 * pdf.js with the thread's built-ins left as they were. The legacy build bundles core-js, which
 * on Node 20 (V8 11) swaps in its own `Array.prototype.push` (for an edge case of arrays of 2³²
 * elements), `JSON.parse`, `JSON.stringify` and `Function.prototype.toString`, for every module in
 * the thread: the parse worker's every push then ran through JavaScript. Putting the native ones
 * back once both halves of pdf.js are loaded (its "fake worker" is a module of this thread too)
 * cuts a text PDF's parse by a quarter to a third (freeculture.pdf 4.4 → 3.2 CPU-s; decision 094).
 * pdf.js needs none of the four: the polyfills it relies on add what Node 20 lacks and stay.
 */
async function importPdfjs(): Promise<Pdfjs> {
  const natives = { push: Array.prototype.push, parse: JSON.parse, stringify: JSON.stringify, toString: Function.prototype.toString };
  try {
    const [pdfjs] = await Promise.all([import("pdfjs-dist/legacy/build/pdf.mjs"), import(PDFJS_WORKER_MODULE)]);
    return pdfjs;
  } finally {
    restoreBuiltIn(Array.prototype, "push", natives.push);
    restoreBuiltIn(JSON, "parse", natives.parse);
    restoreBuiltIn(JSON, "stringify", natives.stringify);
    restoreBuiltIn(Function.prototype, "toString", natives.toString);
  }
}

function restoreBuiltIn<T extends object, K extends keyof T>(owner: T, key: K, native: T[K]): void {
  if (owner[key] !== native) Object.defineProperty(owner, key, { value: native, writable: true, enumerable: false, configurable: true });
}

/** Font and CMap data shipped with pdfjs-dist: standard 14 fonts, and CJK/non-Latin encodings. */
function assetDirectories(): { standardFontDataUrl: string; cMapUrl: string; wasmUrl: string } {
  const root = dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json"));
  const directory = (name: string): string => `${join(root, name)}/`;
  return { standardFontDataUrl: directory("standard_fonts"), cMapUrl: directory("cmaps"), wasmUrl: directory("wasm") };
}

async function parsePdf(input: ParseInput): Promise<ParsedDocument> {
  throwIfAborted(input.signal);
  if (input.data.byteLength === 0) {
    throw new ChunkpadError("PARSE_EMPTY", "empty file (0 bytes)");
  }
  const pdfjs = await loadPdfjs();
  const passwords = input.password === undefined || input.password === "" ? [undefined] : passwordCandidates(input.password);
  for (const [index, password] of passwords.entries()) {
    const task = openTask(pdfjs, input, password);
    try {
      let document: PdfDocument;
      try {
        document = await abortable(task.promise, input.signal);
      } catch (error) {
        if (isWrongPassword(error) && index < passwords.length - 1) continue;
        throw classifyOpenError(error, input);
      }
      return await readDocument(pdfjs, document, input);
    } finally {
      await task.destroy().catch(() => undefined);
    }
  }
  throw new ChunkpadError("INTERNAL", "no attempt was made to open the PDF");
}

function openTask(pdfjs: Pdfjs, input: ParseInput, password: string | undefined): ReturnType<Pdfjs["getDocument"]> {
  return pdfjs.getDocument({
    // pdf.js takes ownership of (and detaches) the buffer it gets; give it a copy.
    data: new Uint8Array(input.data),
    ...(password !== undefined ? { password } : {}),
    ...assetDirectories(),
    cMapPacked: true,
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    useWorkerFetch: false,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    enableXfa: false,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
}

function isWrongPassword(error: unknown): boolean {
  const candidate = error as { name?: unknown; code?: unknown } | null;
  return candidate?.name === "PasswordException" && candidate.code === 2;
}

async function readDocument(pdfjs: Pdfjs, document: PdfDocument, input: ParseInput): Promise<ParsedDocument> {
  const pageCount = document.numPages;
  const blocks: ParsedBlock[] = [];
  const warnings: string[] = [];
  const pagesWithoutText: number[] = [];
  const failedPages: number[] = [];
  let firstFailure = "";

  for (let pageNumber = 1; pageNumber <= pageCount; pageNumber++) {
    throwIfAborted(input.signal);
    try {
      const pageBlocks = await readPage(document, pageNumber, input);
      if (pageBlocks.length === 0) pagesWithoutText.push(pageNumber);
      blocks.push(...pageBlocks);
    } catch (error) {
      if (isChunkpadError(error)) throw error;
      failedPages.push(pageNumber);
      firstFailure ||= describeError(error);
    }
    if (pageNumber % CLEANUP_EVERY_PAGES === 0) await document.cleanup().catch(() => undefined);
  }

  const ocr = input.limits.ocr === "auto" && pagesWithoutText.length > 0
    ? await ocrPdfPages(
        { getPage: (pageNumber) => abortable(document.getPage(pageNumber), input.signal), hasImages: (pageNumber) => hasImages(pdfjs, document, [pageNumber], input) },
        pagesWithoutText,
        input,
      )
    : undefined;
  if (ocr) {
    blocks.push(...ocr.blocks);
    // OCR text belongs where its page is, between the pages that had a text layer.
    blocks.sort((first, second) => (first.page ?? 0) - (second.page ?? 0));
    warnings.push(...ocr.warnings);
  }

  if (blocks.length === 0) {
    throw await classifyTextless(pdfjs, document, input, { pageCount, failedPages: failedPages.length, pagesWithoutText, ocrWarnings: ocr?.warnings });
  }
  if (failedPages.length > 0) {
    warnings.push(`${describePages(failedPages)} could not be read (${firstFailure}); their text is missing`);
  }
  if (pagesWithoutText.length > 0 && !ocr) {
    warnings.push(
      `${describePages(pagesWithoutText)} ${pagesWithoutText.length === 1 ? "has" : "have"} no text layer (scanned or blank); ${OCR_OFF_HINT} to make them searchable`,
    );
  }
  const title = (await readMetadataTitle(document)) ?? blocks.find((block) => block.kind === "heading")?.text;
  return { ...(title ? { title } : {}), blocks, pageCount, warnings, ...(ocr && ocr.ocrPages.length > 0 ? { ocrPages: ocr.ocrPages } : {}) };
}

async function readPage(document: PdfDocument, pageNumber: number, input: ParseInput): Promise<ParsedBlock[]> {
  const page = await abortable(document.getPage(pageNumber), input.signal);
  try {
    const content = await abortable(page.getTextContent(), input.signal);
    const items: PositionedText[] = [];
    // Marked-content markers carry no text; only text items ("str") do.
    for (const item of content.items) if ("str" in item) items.push(item);
    return layoutPage(items, pageNumber);
  } finally {
    page.cleanup();
  }
}

interface TextlessFacts {
  pageCount: number;
  failedPages: number;
  pagesWithoutText: number[];
  /** What OCR said when it ran and found nothing; undefined when OCR is off. */
  ocrWarnings: string[] | undefined;
}

async function classifyTextless(pdfjs: Pdfjs, document: PdfDocument, input: ParseInput, facts: TextlessFacts): Promise<ChunkpadError> {
  if (facts.pageCount === 0) {
    return new ChunkpadError("PARSE_EMPTY", "the PDF has no pages");
  }
  if (facts.failedPages === facts.pageCount) {
    return new ChunkpadError(
      "PARSE_MALFORMED",
      `damaged PDF: none of its ${facts.pageCount} pages could be read — re-export or re-download it`,
    );
  }
  if (facts.ocrWarnings && facts.ocrWarnings.length > 0) {
    return new ChunkpadError("PARSE_NO_TEXT_LAYER", `scanned PDF with no text layer: ${facts.ocrWarnings.join("; ")}`);
  }
  if (!facts.ocrWarnings && (await hasImages(pdfjs, document, facts.pagesWithoutText.slice(0, MAX_PAGES_CHECKED_FOR_IMAGES), input))) {
    return new ChunkpadError("PARSE_NO_TEXT_LAYER", `scanned PDF with no text layer; ${OCR_OFF_HINT} to make it searchable`);
  }
  const where = facts.pageCount === 1 ? "its only page (a blank page or vector drawings only)" : `any of its ${facts.pageCount} pages (blank pages or vector drawings only)`;
  return new ChunkpadError("PARSE_EMPTY", `no text on ${where}`);
}

const IMAGE_OPERATORS = (pdfjs: Pdfjs): Set<number> =>
  new Set([
    pdfjs.OPS.paintImageXObject,
    pdfjs.OPS.paintInlineImageXObject,
    pdfjs.OPS.paintImageMaskXObject,
    pdfjs.OPS.paintImageXObjectRepeat,
    pdfjs.OPS.paintImageMaskXObjectGroup,
    pdfjs.OPS.paintInlineImageXObjectGroup,
    pdfjs.OPS.paintImageMaskXObjectRepeat,
  ]);

/** Whether any of these pages paints an image: the sign of a scan. Operator lists are dropped at once. */
async function hasImages(pdfjs: Pdfjs, document: PdfDocument, pageNumbers: number[], input: ParseInput): Promise<boolean> {
  const imageOperators = IMAGE_OPERATORS(pdfjs);
  for (const pageNumber of pageNumbers) {
    throwIfAborted(input.signal);
    try {
      const page = await abortable(document.getPage(pageNumber), input.signal);
      try {
        const operators = await abortable(page.getOperatorList(), input.signal);
        if (operators.fnArray.some((operator) => imageOperators.has(operator))) return true;
      } finally {
        page.cleanup();
      }
    } catch (error) {
      if (isChunkpadError(error)) throw error;
    }
  }
  return false;
}

async function readMetadataTitle(document: PdfDocument): Promise<string | undefined> {
  try {
    const { info } = await document.getMetadata();
    const raw = (info as { Title?: unknown } | undefined)?.Title;
    if (typeof raw !== "string") return undefined;
    const title = raw
      .replace(/^Microsoft (?:Word|PowerPoint|Excel) - /, "")
      .replace(/\s+/g, " ")
      .trim();
    // Producers often put a file name or a placeholder here; a heading is better then.
    const placeholder =
      title === "" ||
      /[\p{Cc}\ufffd]/u.test(title) ||
      /^untitled\b/i.test(title) ||
      /\.(?:docx?|pdf|pptx?|odt|rtf|tex|dvi|ps|indd|qxd)$/i.test(title);
    return placeholder ? undefined : title;
  } catch {
    return undefined;
  }
}

/** "page 3" or "pages 2, 5 and 40 more", for warnings that must stay one line. */
function describePages(pages: readonly number[]): string {
  const shown = pages.slice(0, 10).join(", ");
  const more = pages.length > 10 ? ` and ${pages.length - 10} more` : "";
  return pages.length === 1 ? `page ${shown}` : `pages ${shown}${more}`;
}

function classifyOpenError(error: unknown, input: ParseInput): ChunkpadError {
  if (isChunkpadError(error)) return error;
  const name = (error as { name?: unknown } | null)?.name;
  const code = (error as { code?: unknown } | null)?.code;
  if (name === "PasswordException") {
    // pdf.js: 1 = a password is needed, 2 = the password given is wrong.
    if (code === 2 || (code === 1 && input.password !== undefined && input.password !== "")) {
      return new ChunkpadError(
        "PARSE_WRONG_PASSWORD",
        "wrong password: the password given does not open this PDF — check it",
        { cause: error },
      );
    }
    return new ChunkpadError(
      "PARSE_ENCRYPTED",
      "encrypted: password required",
      { cause: error },
    );
  }
  return new ChunkpadError(
    "PARSE_MALFORMED",
    `damaged, truncated or not a PDF (${describeError(error)}) — re-export or re-download it`,
    { cause: error },
  );
}

function abortError(signal: AbortSignal): ChunkpadError {
  const reason: unknown = signal.reason;
  if (isChunkpadError(reason)) return reason;
  if ((reason as { name?: unknown } | null)?.name === "TimeoutError") {
    return new ChunkpadError(
      "PARSE_TIMEOUT",
      "took longer than the per-file time limit — raise the limit or split the PDF",
      { cause: reason },
    );
  }
  return new ChunkpadError("CANCELLED", "cancelled while reading the PDF", { cause: reason });
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

/** Settles with the promise, or rejects as soon as the signal aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    // The abandoned promise still settles (destroying the task rejects it); keep that quiet.
    promise.catch(() => undefined);
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
