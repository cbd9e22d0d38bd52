import path from "node:path";
import { ChunkpadError, describeError } from "../../core/errors.js";
import type { ChunkDraft, ChunkingOptions, ParseLimits } from "../../core/types.js";
import { chunkDocument } from "../../chunking/chunker.js";
import { renderChunkFile } from "../../chunkfiles/format.js";
import { chunkFilePathIn } from "../../chunkfiles/paths.js";
import { readChunkFileSafely } from "../../chunkfiles/safe-files.js";
import { diffLines, type DiffLine } from "../../chunkfiles/diff.js";
import type { ParseRunner } from "../../ingest/parse-runner.js";
import type { MainStore, StoredFolder } from "../../store/index.js";

/**
 * What a conflict is between, before the user settles it: their chunk file as it is now against
 * the chunks a fresh parse of the changed source would write, line by line. Reads only; the
 * metadata comment under each "## Chunk" heading (pages, offsets) is left out of the comparison,
 * since every change of the source moves the offsets and the user never edits them.
 */

export interface ConflictDiff {
  relativePath: string;
  /** The user's chunk file text; null when it is gone. */
  mine: string | null;
  /** The chunk file a fresh parse would write; null when the source cannot be parsed (see `failure`). */
  fresh: string | null;
  /** Why the source could not be parsed (an encrypted document without its password, a broken file). */
  failure: { code: string; message: string } | null;
  /** The two texts compared line by line, metadata comments left out. */
  lines: DiffLine[];
  /** Lines only the user's file has, and lines only the fresh chunks have. */
  counts: { mine: number; fresh: number };
}

export interface ConflictDiffContext {
  store: MainStore;
  runner: ParseRunner;
  chunking: ChunkingOptions;
  limits: ParseLimits;
}

export async function conflictDiff(context: ConflictDiffContext, folder: StoredFolder, relativePath: string, options: { password?: string } = {}): Promise<ConflictDiff> {
  const source = await context.store.getSource(folder.id, relativePath);
  if (!source) throw new ChunkpadError("NOT_FOUND", `${relativePath} is not a document of ${folder.rootPath}. Give its path as the chunk-file tree shows it.`);
  const mine = (await readChunkFileSafely(folder.chunksRootPath, chunkFilePathIn(folder.chunksRootPath, relativePath))) ?? null;
  let fresh: string | null = null;
  let failure: ConflictDiff["failure"] = null;
  try {
    const parsed = await context.runner.parse({
      path: path.join(folder.rootPath, ...relativePath.split("/")),
      limits: context.limits,
      chunking: context.chunking,
      ...(options.password ? { password: options.password } : {}),
    });
    const drafts: ChunkDraft[] = parsed.drafts ?? chunkDocument(parsed, context.chunking);
    fresh = renderChunkFile(drafts, { source: relativePath });
  } catch (error) {
    failure = { code: error instanceof ChunkpadError ? error.code : "PARSE_FAILED", message: describeError(error) };
  }
  const lines = diffLines(withoutMetadata(mine ?? ""), withoutMetadata(fresh ?? ""));
  return {
    relativePath,
    mine,
    fresh,
    failure,
    lines,
    counts: { mine: lines.filter((line) => line.kind === "mine").length, fresh: lines.filter((line) => line.kind === "fresh").length },
  };
}

/** Drops the header line and the metadata comment (`<!-- page=3 chars=… -->`) under each "## Chunk" heading. */
function withoutMetadata(text: string): string {
  const lines = text.split(/\r?\n/);
  const comment = (line: string | undefined) => line !== undefined && /^<!--.*-->\s*$/.test(line);
  return lines.filter((line, index) => !(comment(line) && (index === 0 || /^## Chunk\b/.test(lines[index - 1] ?? "")))).join("\n");
}
