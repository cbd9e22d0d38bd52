import * as fs from "node:fs";
import * as path from "node:path";
import { ChunkpadError, isChunkpadError } from "../core/errors.js";
import { redactError } from "../core/redact.js";
import { cancelledError, DOWNLOAD_HELP, DOWNLOAD_STEPS, networkError, statusError } from "./hub-errors.js";
import { cachedFilePath, cachedModelDir, hubFileUrl } from "./hub-paths.js";

export interface DownloadProgress {
  /** The repository file being fetched (`onnx/model.onnx`). */
  file: string;
  /** Bytes on disk so far, across all files of the model. */
  bytesDone: number;
  /** Bytes of all files together, when the hub said; null when unknown. */
  bytesTotal: number | null;
  /** 0..100 across all files (0 while the total is unknown, 100 when done). */
  percent: number;
}

export interface HubOptions {
  /** The hub's base URL (`https://huggingface.co`, or a local server in tests). */
  baseUrl: string;
  /** Models go to `{cacheDir}/{owner}/{name}/...`. */
  cacheDir: string;
  fetch?: typeof fetch;
  onProgress?: (progress: DownloadProgress) => void;
  signal?: AbortSignal;
  /** Branch, tag or commit; default "main". */
  revision?: string;
  /** Files fetched when the hub has them and skipped when it answers 404. */
  optionalFiles?: string[];
  /** Give up when the server sends nothing for this long (default 30 s). */
  idleTimeoutMs?: number;
}

const IDLE_TIMEOUT_MS = 30_000;
/** Progress is reported at least this often while bytes arrive, and at the end of every file. */
const PROGRESS_STEP_BYTES = 256 * 1024;
/** Ask for the bytes as stored: a compressed body would not match Content-Length. */
const IDENTITY_HEADERS = { "accept-encoding": "identity" };

interface RequestContext {
  fetch: typeof fetch;
  signal: AbortSignal | undefined;
  idleTimeoutMs: number;
}

function contextOf(options: HubOptions): RequestContext {
  return { fetch: options.fetch ?? globalThis.fetch, signal: options.signal, idleTimeoutMs: options.idleTimeoutMs ?? IDLE_TIMEOUT_MS };
}

/** An AbortSignal that fires on the caller's signal or when `touch()` is not called for idleTimeoutMs. */
function createIdleSignal(context: RequestContext): { signal: AbortSignal; touch: () => void; stop: () => void; timedOut: () => boolean } {
  const idle = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const touch = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), context.idleTimeoutMs);
  };
  touch();
  const signal = context.signal === undefined ? idle.signal : AbortSignal.any([idle.signal, context.signal]);
  return { signal, touch, stop: () => clearTimeout(timer), timedOut: () => idle.signal.aborted };
}

function failure(url: string, error: unknown, context: RequestContext, timedOut: boolean, doing: string): ChunkpadError {
  if (isChunkpadError(error)) return error;
  if (context.signal?.aborted === true) return cancelledError(url);
  if (timedOut) {
    return new ChunkpadError("MODEL_DOWNLOAD_FAILED", `Could not ${doing} ${url}: the server sent nothing for ${context.idleTimeoutMs / 1000} s. ${DOWNLOAD_HELP}`, {
      nextSteps: DOWNLOAD_STEPS,
      cause: error,
      isRetryable: true,
    });
  }
  return networkError(url, error, doing);
}

async function discardBody(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Nothing to clean up: the connection is already gone.
  }
}

function headerNumber(response: Response, name: string): number | null {
  const value = response.headers.get(name);
  if (value === null || !/^\d+$/.test(value.trim())) return null;
  return Number(value.trim());
}

/** One HEAD request: the file's size, or null when the server does not say. "missing" on 404. */
async function headFile(url: string, repoId: string, context: RequestContext): Promise<number | null | "missing"> {
  const idle = createIdleSignal(context);
  try {
    const response = await context.fetch(url, { method: "HEAD", headers: IDENTITY_HEADERS, redirect: "follow", signal: idle.signal });
    await discardBody(response);
    if (response.status === 404) return "missing";
    if (response.status === 405 || response.status === 501) return null;
    if (!response.ok) throw statusError(url, repoId, response.status);
    // The Hugging Face hub names an LFS file's size in x-linked-size on its redirect.
    return headerNumber(response, "x-linked-size") ?? headerNumber(response, "content-length");
  } catch (error) {
    throw failure(url, error, context, idle.timedOut(), "reach");
  } finally {
    idle.stop();
  }
}

/** Sizes of the files still to fetch (HEAD); optional files the hub lacks are left out. */
async function remoteSizes(repoId: string, files: string[], options: HubOptions): Promise<Map<string, number | null>> {
  const context = contextOf(options);
  const optional = new Set(options.optionalFiles ?? []);
  const sizes = new Map<string, number | null>();
  for (const file of files) {
    const url = hubFileUrl(options.baseUrl, repoId, file, options.revision);
    const size = await headFile(url, repoId, context);
    if (size === "missing") {
      if (optional.has(file)) continue;
      throw statusError(url, repoId, 404);
    }
    sizes.set(file, size);
  }
  return sizes;
}

/** Total bytes of the files (HEAD requests, redirects followed); null when the hub does not say. */
async function remoteTotalSize(repoId: string, files: string[], options: HubOptions): Promise<number | null> {
  const sizes = await remoteSizes(repoId, files, options);
  let total = 0;
  for (const size of sizes.values()) {
    if (size === null) return null;
    total += size;
  }
  return total;
}

function fileSize(filePath: string): number {
  try {
    return fs.statSync(filePath).size;
  } catch {
    return 0;
  }
}

/** `bytes 100-199/200` → start 100, total 200 (null when `*`). */
function parseContentRange(value: string | null): { start: number; total: number | null } | null {
  const match = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(value?.trim() ?? "");
  if (match === null) return null;
  return { start: Number(match[1]), total: match[2] === "*" ? null : Number(match[2]) };
}

function readTag(file: string): string | undefined {
  try {
    const tag = fs.readFileSync(file, "utf8").trim();
    return tag === "" ? undefined : tag;
  } catch {
    return undefined;
  }
}

async function writeTag(file: string, tag: string | null): Promise<void> {
  // Only strong validators may be used with If-Range.
  if (tag === null || tag.startsWith("W/")) await fs.promises.rm(file, { force: true });
  else await fs.promises.writeFile(file, tag);
}

interface FileJob {
  file: string;
  url: string;
  destination: string;
  expectedSize: number | null;
  /** Bytes of the other files already done, for progress across the model. */
  bytesBefore: number;
}

/**
 * Streams one file into `{destination}.partial`, resuming with a Range request when a partial
 * exists, and renames it into place only when it has every byte.
 */
async function downloadFile(job: FileJob, repoId: string, context: RequestContext, report: (bytesOfFile: number, force: boolean) => void, allowResume = true): Promise<void> {
  const partial = `${job.destination}.partial`;
  // The ETag of the version the partial holds: resuming with If-Range gets the whole new file if it changed.
  const partialTag = `${partial}.etag`;
  await fs.promises.mkdir(path.dirname(job.destination), { recursive: true });
  let bytesOfFile = allowResume ? fileSize(partial) : 0;
  if (!allowResume) await fs.promises.rm(partial, { force: true });
  if (job.expectedSize !== null && bytesOfFile > job.expectedSize) {
    await fs.promises.rm(partial, { force: true });
    bytesOfFile = 0;
  }
  if (job.expectedSize !== null && bytesOfFile === job.expectedSize && bytesOfFile > 0) {
    await fs.promises.rename(partial, job.destination); // complete, but stopped before the rename
    await fs.promises.rm(partialTag, { force: true });
    report(bytesOfFile, true);
    return;
  }

  const idle = createIdleSignal(context);
  let handle: fs.promises.FileHandle | undefined;
  let streaming = false;
  try {
    const headers: Record<string, string> = { ...IDENTITY_HEADERS };
    if (bytesOfFile > 0) {
      headers.range = `bytes=${bytesOfFile}-`;
      const tag = readTag(partialTag);
      if (tag !== undefined) headers["if-range"] = tag;
    }
    const response = await context.fetch(job.url, { headers, redirect: "follow", signal: idle.signal });
    if (response.status === 416 && bytesOfFile > 0) {
      await discardBody(response);
      idle.stop();
      return downloadFile(job, repoId, context, report, false);
    }
    if (!response.ok || response.body === null) {
      await discardBody(response);
      throw statusError(job.url, repoId, response.status);
    }

    let finalSize: number | null;
    if (response.status === 206 && bytesOfFile > 0) {
      const range = parseContentRange(response.headers.get("content-range"));
      if (range === null || range.start !== bytesOfFile) {
        await discardBody(response);
        idle.stop();
        return downloadFile(job, repoId, context, report, false);
      }
      finalSize = range.total ?? job.expectedSize;
      handle = await fs.promises.open(partial, "a");
    } else {
      // A fresh answer (the server ignored the Range, or there was no partial): start over.
      bytesOfFile = 0;
      finalSize = headerNumber(response, "content-length") ?? job.expectedSize;
      handle = await fs.promises.open(partial, "w");
      await writeTag(partialTag, response.headers.get("etag"));
    }
    report(bytesOfFile, true);

    streaming = true;
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      idle.touch();
      await handle.write(value);
      bytesOfFile += value.byteLength;
      report(bytesOfFile, false);
    }
    await handle.close();
    handle = undefined;

    if (finalSize !== null && bytesOfFile !== finalSize) {
      throw new ChunkpadError(
        "MODEL_DOWNLOAD_FAILED",
        `The download of ${job.url} stopped at ${bytesOfFile} of ${finalSize} bytes. Run the command again to resume it.`,
        { isRetryable: true },
      );
    }
    await fs.promises.rename(partial, job.destination);
    await fs.promises.rm(partialTag, { force: true });
    report(bytesOfFile, true);
  } catch (error) {
    if (!isChunkpadError(error) && context.signal?.aborted !== true && !idle.timedOut() && streaming) {
      throw new ChunkpadError(
        "MODEL_DOWNLOAD_FAILED",
        `The download of ${job.url} was interrupted after ${bytesOfFile} bytes (the connection was lost). Run the command again to resume it.`,
        { cause: error, isRetryable: true },
      );
    }
    throw failure(job.url, error, context, idle.timedOut(), "download");
  } finally {
    idle.stop();
    await handle?.close();
  }
}

/**
 * Downloads the files of a hub repository into `{cacheDir}/{repoId}` and returns that directory.
 * Files already present are skipped; progress is reported across all files.
 */
async function downloadFiles(repoId: string, files: string[], options: HubOptions): Promise<string> {
  const modelDir = cachedModelDir(options.cacheDir, repoId);
  const context = contextOf(options);
  const wanted = [...new Set([...files, ...(options.optionalFiles ?? [])])];

  let bytesDone = 0;
  const pending: string[] = [];
  for (const file of wanted) {
    const destination = cachedFilePath(options.cacheDir, repoId, file);
    if (fs.existsSync(destination)) bytesDone += fileSize(destination);
    else pending.push(file);
  }
  const sizes = pending.length === 0 ? new Map<string, number | null>() : await remoteSizes(repoId, pending, options);
  let bytesTotal: number | null = bytesDone;
  for (const size of sizes.values()) bytesTotal = size === null || bytesTotal === null ? null : bytesTotal + size;

  let lastReported = -Infinity;
  const emit = (file: string, done: number, force: boolean): void => {
    if (!force && done - lastReported < PROGRESS_STEP_BYTES) return;
    lastReported = done;
    const percent = bytesTotal === null || bytesTotal === 0 ? 0 : Math.min(100, (done / bytesTotal) * 100);
    options.onProgress?.({ file, bytesDone: done, bytesTotal, percent });
  };

  for (const [file, expectedSize] of sizes) {
    const job: FileJob = {
      file,
      url: hubFileUrl(options.baseUrl, repoId, file, options.revision),
      destination: cachedFilePath(options.cacheDir, repoId, file),
      expectedSize,
      bytesBefore: bytesDone,
    };
    await downloadFile(job, repoId, context, (bytesOfFile, force) => emit(file, job.bytesBefore + bytesOfFile, force));
    bytesDone += fileSize(job.destination);
  }
  options.onProgress?.({ file: wanted.at(-1) ?? "", bytesDone, bytesTotal: bytesTotal ?? bytesDone, percent: 100 });
  return modelDir;
}

// Errors name the URL they failed on; credentials in a hub URL (user:password@, ?token=) are taken out.

export async function fetchRemoteSizes(repoId: string, files: string[], options: HubOptions): Promise<number | null> {
  try {
    return await remoteTotalSize(repoId, files, options);
  } catch (error) {
    throw redactError(error);
  }
}

export async function downloadModelFiles(repoId: string, files: string[], options: HubOptions): Promise<string> {
  try {
    return await downloadFiles(repoId, files, options);
  } catch (error) {
    throw redactError(error);
  }
}
