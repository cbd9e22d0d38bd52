import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Worker as TesseractWorker } from "tesseract.js";
import { ChunkpadError } from "../core/errors.js";
import type { ParsedBlock } from "../core/types.js";


/**
 * OCR with tesseract.js and the English data shipped in @tesseract.js-data/eng, fully offline:
 * the language data is read from node_modules and the wasm core is loaded with require, so
 * nothing is fetched. tesseract.js runs its engine in a thread of its own, started from the
 * parse worker: terminating the parse worker (time limit) ends it too.
 */
export interface OcrEngine {
  /** Text of one image (PNG, JPEG, TIFF, BMP, PPM bytes), as paragraphs; empty when nothing legible. */
  recognize(image: Uint8Array, signal?: AbortSignal, options?: RecognizeOptions): Promise<OcrPage>;
  close(): Promise<void>;
}

export interface RecognizeOptions {
  /**
   * Whether tesseract reads each line it is unsure of a second time, inverted (white on black).
   * On by default: it is how light text on a dark band is read. A first look that only asks
   * whether a page is legible turns it off: on the corpus's scans at 72 dpi that second try is
   * a third to a half of the recognition, and the legible and illegible pages stay apart
   * (confidence 61–95 against 23–27; decision 094).
   */
  invertedLines?: boolean;
}

export interface OcrPage {
  paragraphs: string[];
  /** Tesseract's mean word confidence, 0..100. */
  confidence: number;
  /** Letters and digits in what tesseract read, kept or not: how much it took for text. */
  alphanumericCharacters: number;
}

/** The setting users change to turn OCR on or off; named in every message about OCR. */
export const OCR_SETTING = "ingest.ocr";
export const OCR_OFF_HINT = `OCR is off (${OCR_SETTING} is "off"); turn it on (${OCR_SETTING} auto)`;

/** Below this mean confidence tesseract is reading texture (a photo, a signature), not text. */
const MIN_CONFIDENCE = 45;
/** A page needs this many letters or digits before its OCR text is kept. */
const MIN_ALPHANUMERIC_CHARACTERS = 3;

function languageDirectory(): string {
  const root = dirname(createRequire(import.meta.url).resolve("@tesseract.js-data/eng/package.json"));
  // The LSTM-only "best int" model: 2.9 MB, and the engine tesseract.js runs by default.
  return join(root, "4.0.0_best_int");
}

/**
 * tesseract.js's own thread, started on the wasm core without the legacy engine, which the
 * LSTM-only model never uses. tesseract.js 7 would pick that core for OEM.LSTM_ONLY but passes
 * a boolean where its `getCore` compares OEM numbers, so it always loads the full core (3.5 MB
 * of wasm against 2.9). The same text and confidence on every page the corpus sends to OCR;
 * an engine starts on half the CPU (decision 097). The thread is tesseract.js's worker script,
 * with this `getCore`; a data: URL, since the built code and the tests run from different folders.
 */
function lstmCoreWorker(): URL {
  const workerScript = createRequire(import.meta.url).resolve("tesseract.js/src/worker-script/node/index.js");
  const source = `
    import { createRequire } from "node:module";
    import { parentPort } from "node:worker_threads";
    const require = createRequire(${JSON.stringify(workerScript)});
    const worker = require("..");
    const { relaxedSimd, simd } = require("wasm-feature-detect");
    let core;
    const getCore = async () => core ??= require("tesseract.js-core/tesseract-core-" + ((await relaxedSimd()) ? "relaxedsimd-" : (await simd()) ? "simd-" : "") + "lstm");
    parentPort.on("message", (packet) => worker.dispatchHandlers(packet, (answer) => parentPort.postMessage(answer)));
    worker.setAdapter({ getCore, gunzip: require("./gunzip"), fetch: globalThis.fetch, ...require("./cache") });
  `;
  return new URL(`data:text/javascript,${encodeURIComponent(source)}`);
}

/** A kept engine is closed after this long without a page to read (a server's parse worker waits between runs). */
const KEPT_ENGINE_IDLE_MS = 30_000;

let keepEngines = false;
type StartedEngine = OcrEngine & { closed(): boolean };

let keptEngine: StartedEngine | undefined;
let keptEngineTimer: NodeJS.Timeout | undefined;

/**
 * Keeps one started engine in this thread between files instead of closing it after each (a
 * parse worker calls this: starting one costs about a CPU-second, the wasm core plus the
 * language data, which a folder with many scans paid per file; decision 086). Callers outside
 * a parse worker get an engine per file, so nothing keeps their process alive afterwards.
 */
export function keepOcrEnginesBetweenFiles(): void {
  keepEngines = true;
}

/**
 * An engine for one file's pages; `close()` gives it back. With engines kept, a free started one
 * is reused and put back afterwards; one stopped by the time limit (terminated mid-page) is not.
 */
export async function createOcrEngine(): Promise<OcrEngine> {
  if (!keepEngines) return startOcrEngine();
  clearTimeout(keptEngineTimer);
  const engine = keptEngine ?? (await startOcrEngine());
  keptEngine = undefined;
  let returned = false;
  return {
    recognize: (image, signal, options) => engine.recognize(image, signal, options),
    async close() {
      if (returned) return;
      returned = true;
      if (engine.closed() || keptEngine !== undefined) return engine.close();
      keptEngine = engine;
      keptEngineTimer = setTimeout(() => {
        if (keptEngine !== engine) return;
        keptEngine = undefined;
        void engine.close();
      }, KEPT_ENGINE_IDLE_MS);
      keptEngineTimer.unref();
    },
  };
}

type RecognizeParameters = Parameters<TesseractWorker["recognize"]>[1];

/** Starts a tesseract worker (about a second: wasm core plus language data). */
async function startOcrEngine(): Promise<StartedEngine> {
  const { createWorker, OEM } = await import("tesseract.js");
  let worker: TesseractWorker;
  try {
    worker = await createWorker("eng", OEM.LSTM_ONLY, { langPath: languageDirectory(), gzip: true, cacheMethod: "none", workerPath: lstmCoreWorker() as unknown as string });
  } catch (error) {
    throw new ChunkpadError("PARSE_FAILED", `OCR could not start (${String(error)}); reinstall Chunkpad, or turn OCR off`, { cause: error, nextSteps: [{ action: "change-setting", key: OCR_SETTING, value: "off" }] });
  }
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await worker.terminate().catch(() => undefined);
  };
  return {
    async recognize(image, signal, options) {
      if (signal?.aborted) throw new ChunkpadError("PARSE_TIMEOUT", "OCR stopped at the per-file time limit");
      // Terminating the worker is the only way to stop a page mid-recognition.
      const onAbort = (): void => void close();
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        // tesseract.js passes options it does not know on to tesseract as parameters for this call.
        const parameters = (options?.invertedLines === false ? { tessedit_do_invert: "0" } : {}) as RecognizeParameters;
        const { data } = await worker.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength), parameters);
        return toPage(data.text, data.confidence);
      } catch (error) {
        if (signal?.aborted) throw new ChunkpadError("PARSE_TIMEOUT", "OCR stopped at the per-file time limit", { cause: error });
        throw error;
      } finally {
        signal?.removeEventListener("abort", onAbort);
      }
    },
    close,
    closed: () => closed,
  };
}

/** Tesseract separates paragraphs with a blank line and ends each line with a newline. */
export function toPage(text: string, confidence: number): OcrPage {
  const alphanumericCharacters = text.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
  if (confidence < MIN_CONFIDENCE || alphanumericCharacters < MIN_ALPHANUMERIC_CHARACTERS) return { paragraphs: [], confidence, alphanumericCharacters };
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/-\n(?=\p{Ll})/gu, "").replace(/\s*\n\s*/g, " ").trim())
    .filter((paragraph) => /[\p{L}\p{N}]/u.test(paragraph));
  return { paragraphs, confidence, alphanumericCharacters };
}

export function ocrBlocks(page: OcrPage, pageNumber: number | undefined): ParsedBlock[] {
  return page.paragraphs.map((text) => ({ kind: "paragraph" as const, text, ...(pageNumber === undefined ? {} : { page: pageNumber }) }));
}
