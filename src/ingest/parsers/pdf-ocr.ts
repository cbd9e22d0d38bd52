import type { PDFPageProxy } from "pdfjs-dist/legacy/build/pdf.mjs";
import { isChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParseInput } from "../../core/types.js";
import { describePageRuns } from "../../core/page-runs.js";
import { createOcrEngine, ocrBlocks, type OcrEngine, type OcrPage } from "../ocr.js";

/**
 * OCR for the pages of a PDF that have no text layer: each is rendered with pdf.js onto an
 * @napi-rs/canvas canvas and read by tesseract. OCR costs seconds a page, so pages are read
 * while the per-file time budget lasts; the rest are named in a warning, never dropped silently.
 */
export interface PdfOcrResult {
  blocks: ParsedBlock[];
  /** Pages where OCR found text. */
  ocrPages: number[];
  warnings: string[];
  /** Whether any page was put through OCR at all (a scan with nothing legible still counts). */
  attempted: boolean;
}

/** 200 dpi: tesseract reads body text as well as at 300 dpi here, in half the pixels. */
const RENDER_DPI = 200;
/**
 * The glance before the full read: a ninth of the pixels. issue7229.pdf (a Russian form) took
 * 16 CPU-s at 200 dpi for text read at confidence 27–29 and dropped; its glance costs 3 (decision 087).
 */
const GLANCE_DPI = 72;
/** A glance below this mean confidence… (the corpus's readable scans glance at 61–78, its unreadable ones at 21–31). */
const GLANCE_MIN_CONFIDENCE = 40;
/** …that took at least this many letters and digits for text passes the page over. */
const GLANCE_MIN_ALPHANUMERIC_CHARACTERS = 20;
/** The glance's first look: the inkiest quarter of the page (decision 094). */
const GLANCE_BAND_SHARE = 0.25;
/** A glance only asks whether the page is legible: no second, inverted try of unsure lines (decision 094). */
const GLANCE_OPTIONS = { invertedLines: false } as const;
/** A pixel darker than this (0–255) is ink. */
const DARK_BELOW = 128;
/** Pages drawn larger than this (posters, maps) are scaled down to keep memory bounded. */
const MAX_RENDER_PIXELS = 3_500 * 3_500;
/** Assumed time for the first page, before any page has been timed. */
const FIRST_PAGE_ESTIMATE_MS = 8_000;
/** Kept free at the end of the budget to hand the result back before the hard kill. */
const BUDGET_MARGIN_MS = 1_000;

export interface PdfOcrPages {
  getPage(pageNumber: number): Promise<PDFPageProxy>;
  /** Whether the page paints an image: blank and vector-only pages are not worth OCR. */
  hasImages(pageNumber: number): Promise<boolean>;
}

export async function ocrPdfPages(source: PdfOcrPages, pageNumbers: readonly number[], input: ParseInput): Promise<PdfOcrResult> {
  const result: PdfOcrResult = { blocks: [], ocrPages: [], warnings: [], attempted: false };
  const illegible: number[] = [];
  const passedOver: number[] = [];
  const notReached: number[] = [];
  let slowestPageMs: number | undefined;
  let engine: OcrEngine | undefined;
  try {
    for (const [index, pageNumber] of pageNumbers.entries()) {
      const remainingMs = input.deadlineMs === undefined ? Number.POSITIVE_INFINITY : input.deadlineMs - Date.now() - BUDGET_MARGIN_MS;
      if (input.signal?.aborted || remainingMs < (slowestPageMs ?? FIRST_PAGE_ESTIMATE_MS)) {
        notReached.push(...pageNumbers.slice(index));
        break;
      }
      if (!(await source.hasImages(pageNumber))) continue;
      const started = Date.now();
      engine ??= await createOcrEngine();
      result.attempted = true;
      let page;
      try {
        page = await readPage(engine, await source.getPage(pageNumber), input.signal);
      } catch (error) {
        if (!isChunkpadError(error) || error.code !== "PARSE_TIMEOUT") throw error;
        notReached.push(...pageNumbers.slice(index));
        break;
      }
      slowestPageMs = Math.max(slowestPageMs ?? 0, Date.now() - started);
      if (page === undefined) passedOver.push(pageNumber);
      else if (page.paragraphs.length === 0) illegible.push(pageNumber);
      else {
        result.ocrPages.push(pageNumber);
        result.blocks.push(...ocrBlocks(page, pageNumber));
      }
    }
  } finally {
    await engine?.close();
  }
  if (illegible.length > 0) result.warnings.push(`OCR found no legible text on ${describePageRuns(illegible)} (a photo, a drawing or a blank scan)`);
  if (passedOver.length > 0) {
    result.warnings.push(`OCR passed over ${describePageRuns(passedOver)}: a first look at ${GLANCE_DPI} dpi saw marks but no legible English (a photo, a texture, or another script)`);
  }
  if (notReached.length > 0) {
    result.warnings.push(
      `OCR stopped at the per-file time limit: ${describePageRuns(notReached)} not read; give it more time with --timeout <seconds> or ingest.perFileTimeoutSeconds to OCR more pages`,
    );
  }
  return result;
}

/**
 * One page: a glance at low resolution first, then the full read, unless the glance found plenty
 * of marks and read them at a confidence the full read does not keep (texture, a photo, a script
 * the English model cannot read). Undefined when the page was passed over. A glance that finds
 * little (a blank page, small print it cannot separate) decides nothing: the full read runs.
 *
 * The glance starts with the page's inkiest band: when that reads as legible text the page is
 * read in full at once (on a dense page of text the band costs a third of the whole glance).
 * Only the whole page's glance passes a page over, so a photo above legible text is still read.
 */
async function readPage(engine: OcrEngine, page: PDFPageProxy, signal: AbortSignal | undefined): Promise<OcrPage | undefined> {
  try {
    const glance = await renderPage(page, GLANCE_DPI);
    const band = await engine.recognize(toPpm(inkiestBand(glance, GLANCE_BAND_SHARE)), signal, GLANCE_OPTIONS);
    if (!isLegible(band)) {
      const whole = await engine.recognize(toPpm(glance), signal, GLANCE_OPTIONS);
      if (whole.confidence < GLANCE_MIN_CONFIDENCE && whole.alphanumericCharacters >= GLANCE_MIN_ALPHANUMERIC_CHARACTERS) return undefined;
    }
    return await engine.recognize(toPpm(await renderPage(page, RENDER_DPI)), signal);
  } finally {
    page.cleanup();
  }
}

function isLegible(glance: OcrPage): boolean {
  return glance.confidence >= GLANCE_MIN_CONFIDENCE && glance.alphanumericCharacters >= GLANCE_MIN_ALPHANUMERIC_CHARACTERS;
}

interface Pixels {
  width: number;
  height: number;
  /** RGBA, rows top to bottom. */
  data: Uint8ClampedArray;
}

/** The full-width band of this share of the page's height with the most dark pixels: where the text (or the photo) is. */
export function inkiestBand(image: Pixels, share: number): Pixels {
  const height = Math.min(image.height, Math.max(1, Math.round(image.height * share)));
  const rowLength = image.width * 4;
  const darkInRow = new Uint32Array(image.height);
  for (let row = 0; row < image.height; row++) {
    let dark = 0;
    // The red channel stands for the pixel: scans are gray.
    for (let index = row * rowLength, end = index + rowLength; index < end; index += 4) if (image.data[index]! < DARK_BELOW) dark++;
    darkInRow[row] = dark;
  }
  let sum = 0;
  for (let row = 0; row < height; row++) sum += darkInRow[row]!;
  let best = sum;
  let top = 0;
  for (let row = height; row < image.height; row++) {
    sum += darkInRow[row]! - darkInRow[row - height]!;
    if (sum > best) {
      best = sum;
      top = row - height + 1;
    }
  }
  return { width: image.width, height, data: image.data.subarray(top * rowLength, (top + height) * rowLength) };
}

/** The page drawn at this resolution; the caller releases the page (both renders share its operator list). */
async function renderPage(page: PDFPageProxy, dpi: number): Promise<Pixels> {
  const { createCanvas } = await import("@napi-rs/canvas");
  const natural = page.getViewport({ scale: dpi / 72 });
  const shrink = Math.min(1, Math.sqrt(MAX_RENDER_PIXELS / (natural.width * natural.height)));
  const viewport = shrink < 1 ? page.getViewport({ scale: (dpi / 72) * shrink }) : natural;
  const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
  const context = canvas.getContext("2d");
  // Scans often rely on a white page under a masked or transparent image.
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, canvas.width, canvas.height);
  await page.render({ canvas: canvas as unknown as HTMLCanvasElement, canvasContext: context as unknown as CanvasRenderingContext2D, viewport }).promise;
  return context.getImageData(0, 0, canvas.width, canvas.height);
}

/**
 * The rendered page as a binary PPM: the same RGB pixels a PNG would carry (tesseract reads the
 * same text from both), without compressing them here and inflating them again in tesseract's
 * wasm (a PNG cost 0.2–0.9 CPU-s a page to encode; decision 086).
 */
export function toPpm(image: { width: number; height: number; data: Uint8ClampedArray }): Uint8Array {
  const header = Buffer.from(`P6\n${image.width} ${image.height}\n255\n`, "ascii");
  const ppm = new Uint8Array(header.length + image.width * image.height * 3);
  ppm.set(header);
  const rgba = image.data;
  for (let from = 0, to = header.length; from < rgba.length; from += 4, to += 3) {
    ppm[to] = rgba[from]!;
    ppm[to + 1] = rgba[from + 1]!;
    ppm[to + 2] = rgba[from + 2]!;
  }
  return ppm;
}
