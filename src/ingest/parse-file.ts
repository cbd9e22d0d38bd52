import { ChunkpadError, isChunkpadError } from "../core/errors.js";
import type { ParsedDocument, ParseLimits } from "../core/types.js";
import { loadParserFor } from "./registry.js";
import { readWholeFile } from "../core/whole-file-read.js";
import { checkTextQuality, looksLikeEbcdic } from "./text-quality.js";

export interface ParseFileOptions {
  password?: string;
  limits: ParseLimits;
  signal?: AbortSignal;
  deadlineMs?: number;
}

/**
 * Parses one file in this thread. Any failure comes back as a ChunkpadError with a PARSE_*
 * code; a parser's unexpected exception becomes PARSE_FAILED with its message.
 */
export async function parseFile(filePath: string, options: ParseFileOptions): Promise<ParsedDocument> {
  // A note is read in one synchronous call: this is the parse worker's thread, and the runner's time
  // limit stops it from outside (parse-runner.ts) should a read ever hang.
  const data = new Uint8Array(await readWholeFile(filePath));
  if (data.byteLength === 0) throw new ChunkpadError("PARSE_EMPTY", "empty file (0 bytes)");
  const parserPromise = loadParserFor(filePath, data);
  if (!parserPromise) throw new ChunkpadError("PARSE_UNSUPPORTED", `No parser reads ${filePath}: it is neither a known document format nor text.`);
  const parser = await parserPromise;
  try {
    if ((parser.name === "text" || parser.name === "markdown") && looksLikeEbcdic(data)) {
      throw new ChunkpadError("PARSE_GARBLED", "the file looks like EBCDIC (mainframe) text, which would index as garbage; convert it first, e.g. iconv -f IBM037 -t UTF-8");
    }
    const document = await parser.parse({ path: filePath, data, password: options.password, limits: options.limits, signal: options.signal, ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }) });
    if (document.blocks.every((block) => block.text.trim() === "")) {
      throw new ChunkpadError("PARSE_EMPTY", "no text found in the document");
    }
    return checkTextQuality(document);
  } catch (error) {
    if (isChunkpadError(error)) throw error;
    if (options.signal?.aborted) throw new ChunkpadError("PARSE_TIMEOUT", "parsing took longer than the per-file time limit", { cause: error });
    throw new ChunkpadError("PARSE_FAILED", `${parser.name} parser failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
