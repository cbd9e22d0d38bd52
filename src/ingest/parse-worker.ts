// Runs parsers off the main thread, one file at a time, so a hung or memory-hungry parser can
// be stopped by terminating this worker without harming the run.
import { parentPort } from "node:worker_threads";
import { isChunkpadError } from "../core/errors.js";
import { timeoutError } from "./parse-timeout.js";
import type { ChunkDraft, ChunkingOptions, ParsedDocument, ParseLimits } from "../core/types.js";
import { chunkDocument } from "../chunking/chunker.js";
import { parseFile } from "./parse-file.js";
import { keepOcrEnginesBetweenFiles } from "./ocr.js";

export interface ParseRequest {
  id: number;
  path: string;
  password?: string;
  limits: ParseLimits;
  timeoutMs: number;
  /** Chunk the document here too, where its text already is (tokens counted off the main thread); its blocks then come back empty. */
  chunking?: ChunkingOptions;
}

export type ParseResponse =
  | { id: number; ok: true; document: ParsedDocument; drafts?: ChunkDraft[] }
  | { id: number; ok: false; code: string; message: string };

const port = parentPort;
if (port) {
  // This thread parses one file after another until it is terminated: one tesseract worker serves them all.
  keepOcrEnginesBetweenFiles();
  port.on("message", (request: ParseRequest) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), request.timeoutMs);
    parseFile(request.path, { password: request.password, limits: request.limits, signal: controller.signal, deadlineMs: Date.now() + request.timeoutMs })
      .then((document) => {
        const drafts = request.chunking === undefined ? undefined : chunkDocument(document, request.chunking);
        // Chunked here, the document's text travels back once, in its chunks: its blocks stay behind.
        const sent = drafts === undefined ? document : { ...document, blocks: [] };
        port.postMessage({ id: request.id, ok: true, document: sent, ...(drafts === undefined ? {} : { drafts }) } satisfies ParseResponse);
      })
      .catch((error: unknown) => {
        // A parser stopped by the time limit reports a cancellation; the user needs to hear "timeout".
        if (controller.signal.aborted) error = timeoutError(request.timeoutMs);
        const errno = (error as NodeJS.ErrnoException | null)?.code;
        if (errno === "EACCES" || errno === "EPERM" || errno === "EIO" || errno === "EBUSY") {
          port.postMessage({ id: request.id, ok: false, code: "SOURCE_UNREADABLE", message: `cannot be read (${errno}): ${(error as Error).message}; it is tried again on the next run` } satisfies ParseResponse);
          return;
        }
        const response: ParseResponse = isChunkpadError(error)
          ? { id: request.id, ok: false, code: error.code, message: error.message }
          : { id: request.id, ok: false, code: "PARSE_FAILED", message: error instanceof Error ? error.message : String(error) };
        port.postMessage(response);
      })
      .finally(() => clearTimeout(timer));
  });
  // Loaded and listening: the runner starts each file's time limit from here (parse-runner.ts).
  port.postMessage({ ready: true });
}
