import { crc32 } from "node:zlib";
import { Inflate } from "fflate";
import { ChunkpadError, isChunkpadError } from "../core/errors.js";
import type { ParseLimits } from "../core/types.js";

/**
 * A zip reader for untrusted office files. It reads the central directory itself and inflates
 * only the entries a parser asks for, counting the bytes it actually produces (declared sizes
 * are never trusted) and stopping the moment a limit is passed, so a zip bomb costs a few
 * megabytes and milliseconds, not the machine.
 */
export interface ZipEntry {
  /** Path inside the archive, forward slashes, no leading slash. */
  name: string;
  /** 0 = stored, 8 = deflated. */
  method: number;
  compressedSize: number;
  /** What the archive claims; shown in messages, never used to size anything. */
  declaredSize: number;
  encrypted: boolean;
  localHeaderOffset: number;
  /** The CRC-32 the archive records for the entry's bytes. */
  crc32: number;
}

export interface ZipArchive {
  readonly entries: readonly ZipEntry[];
  /** Whether an entry exists (exact name first, then ignoring case, as OOXML part names do). */
  has(name: string): boolean;
  /** The entry's inflated bytes, or undefined when there is no such entry. */
  read(name: string): Uint8Array | undefined;
  /** Bytes inflated so far, over every entry read. */
  readonly inflatedBytes: number;
}

export interface OpenZipOptions {
  limits: ParseLimits;
  signal?: AbortSignal;
  /**
   * For archives Chunkpad wrote itself (export): an absolute limit per entry instead of the
   * compression-ratio guard (a repetitive log legitimately compresses 1000:1), and every entry
   * checked against its recorded size and CRC-32, so a damaged or altered entry is refused.
   */
  strict?: { maxEntryBytes: number };
}

/**
 * An entry that expands more than this many times its compressed size is a bomb: real office
 * XML stays under 50:1, while a run of one repeated byte reaches deflate's maximum of ~1032:1.
 */
export const MAX_COMPRESSION_RATIO = 250;
/** The ratio is judged only once an entry has produced this much, so tiny entries never trip it. */
export const RATIO_CHECK_AFTER_BYTES = 4 * 1024 * 1024;
/** Compressed bytes handed to the inflater at a time: bounds one step's output to ~16 MB. */
const INFLATE_STEP_BYTES = 16 * 1024;

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const ZIP64_END_OF_CENTRAL_DIRECTORY = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const END_RECORD_BYTES = 22;
const MAX_COMMENT_BYTES = 0xffff;
const MEGABYTE = 1024 * 1024;

export function openZip(data: Uint8Array, options: OpenZipOptions): ZipArchive {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const entries = readCentralDirectory(data, view, options.limits);
  const byName = new Map<string, ZipEntry>();
  const byLowerName = new Map<string, ZipEntry>();
  for (const entry of entries) {
    if (!byName.has(entry.name)) byName.set(entry.name, entry);
    const lower = entry.name.toLowerCase();
    if (!byLowerName.has(lower)) byLowerName.set(lower, entry);
  }
  const cache = new Map<ZipEntry, Uint8Array>();
  let inflatedBytes = 0;

  const find = (name: string): ZipEntry | undefined => {
    const normalized = normalizeName(name);
    return byName.get(normalized) ?? byLowerName.get(normalized.toLowerCase());
  };

  return {
    entries,
    has: (name) => find(name) !== undefined,
    get inflatedBytes() {
      return inflatedBytes;
    },
    read(name) {
      const entry = find(name);
      if (!entry) return undefined;
      const cached = cache.get(entry);
      if (cached) return cached;
      const bytes = inflateEntry(data, view, entry, {
        remainingBytes: options.limits.maxDecompressedBytes - inflatedBytes,
        limits: options.limits,
        signal: options.signal,
        strict: options.strict,
      });
      if (options.strict) checkEntry(entry, bytes);
      inflatedBytes += bytes.byteLength;
      cache.set(entry, bytes);
      return bytes;
    },
  };
}

/** Throws PARSE_TIMEOUT once the per-file time limit has passed. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new ChunkpadError("PARSE_TIMEOUT", "parsing took longer than the per-file time limit; raise ingest.perFileTimeoutSeconds to give it more time");
  }
}

function normalizeName(name: string): string {
  return name.replace(/\\/g, "/").replace(/^\/+/, "");
}

function malformed(message: string): ChunkpadError {
  return new ChunkpadError("PARSE_MALFORMED", message);
}

function readCentralDirectory(data: Uint8Array, view: DataView, limits: ParseLimits): ZipEntry[] {
  if (data.byteLength < END_RECORD_BYTES) throw notZip(data);
  const endOffset = findEndRecord(view);
  if (endOffset < 0) throw notZip(data);

  let entryCount = view.getUint16(endOffset + 10, true);
  let directorySize = view.getUint32(endOffset + 12, true);
  let directoryOffset = view.getUint32(endOffset + 16, true);
  const locatorOffset = endOffset - 20;
  if (locatorOffset >= 0 && view.getUint32(locatorOffset, true) === ZIP64_LOCATOR) {
    const zip64Offset = safeNumber(view.getBigUint64(locatorOffset + 8, true));
    if (zip64Offset + 56 > data.byteLength || view.getUint32(zip64Offset, true) !== ZIP64_END_OF_CENTRAL_DIRECTORY) {
      throw malformed("The zip archive's directory is damaged (bad ZIP64 record); re-save the document from its application.");
    }
    entryCount = safeNumber(view.getBigUint64(zip64Offset + 32, true));
    directorySize = safeNumber(view.getBigUint64(zip64Offset + 40, true));
    directoryOffset = safeNumber(view.getBigUint64(zip64Offset + 48, true));
  }
  if (entryCount === 0) throw malformed("The file is an empty zip archive with nothing in it, not a document.");
  if (entryCount > limits.maxArchiveEntries) throw tooManyEntries(entryCount, limits);
  if (directoryOffset + directorySize > data.byteLength) {
    throw malformed("The zip archive is truncated (its directory points past the end of the file); the file was probably cut short while copying or downloading.");
  }

  const decoder = new TextDecoder("utf-8");
  const entries: ZipEntry[] = [];
  let offset = directoryOffset;
  const end = directoryOffset + directorySize;
  while (offset + 46 <= end && view.getUint32(offset, true) === CENTRAL_FILE_HEADER) {
    if (entries.length >= limits.maxArchiveEntries) throw tooManyEntries(entries.length + 1, limits);
    const flags = view.getUint16(offset + 8, true);
    const method = view.getUint16(offset + 10, true);
    const checksum = view.getUint32(offset + 16, true);
    let compressedSize = view.getUint32(offset + 20, true);
    let declaredSize = view.getUint32(offset + 24, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    let localHeaderOffset = view.getUint32(offset + 42, true);
    const nameStart = offset + 46;
    if (nameStart + nameLength + extraLength > end) break;
    const name = normalizeName(decoder.decode(data.subarray(nameStart, nameStart + nameLength)));
    const zip64 = readZip64Extra(view, nameStart + nameLength, extraLength, {
      declaredSize: declaredSize === 0xffffffff,
      compressedSize: compressedSize === 0xffffffff,
      localHeaderOffset: localHeaderOffset === 0xffffffff,
    });
    declaredSize = zip64.declaredSize ?? declaredSize;
    compressedSize = zip64.compressedSize ?? compressedSize;
    localHeaderOffset = zip64.localHeaderOffset ?? localHeaderOffset;
    if (!name.endsWith("/")) {
      entries.push({ name, method, compressedSize, declaredSize, encrypted: (flags & 1) === 1, localHeaderOffset, crc32: checksum });
    }
    offset = nameStart + nameLength + extraLength + commentLength;
  }
  if (entries.length === 0) throw malformed("The zip archive's directory is damaged or lists no files; re-save the document from its application.");
  return entries;
}

function findEndRecord(view: DataView): number {
  const lowest = Math.max(0, view.byteLength - END_RECORD_BYTES - MAX_COMMENT_BYTES);
  for (let offset = view.byteLength - END_RECORD_BYTES; offset >= lowest; offset--) {
    if (view.getUint32(offset, true) === END_OF_CENTRAL_DIRECTORY) return offset;
  }
  return -1;
}

function readZip64Extra(
  view: DataView,
  start: number,
  length: number,
  wanted: { declaredSize: boolean; compressedSize: boolean; localHeaderOffset: boolean },
): { declaredSize?: number; compressedSize?: number; localHeaderOffset?: number } {
  let offset = start;
  while (offset + 4 <= start + length) {
    const id = view.getUint16(offset, true);
    const size = view.getUint16(offset + 2, true);
    if (id === 0x0001) {
      const found: { declaredSize?: number; compressedSize?: number; localHeaderOffset?: number } = {};
      let field = offset + 4;
      const fieldEnd = offset + 4 + size;
      const next = (): number | undefined => {
        if (field + 8 > fieldEnd) return undefined;
        const value = safeNumber(view.getBigUint64(field, true));
        field += 8;
        return value;
      };
      if (wanted.declaredSize) found.declaredSize = next();
      if (wanted.compressedSize) found.compressedSize = next();
      if (wanted.localHeaderOffset) found.localHeaderOffset = next();
      return found;
    }
    offset += 4 + size;
  }
  return {};
}

function safeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw malformed("The zip archive's directory holds impossible sizes; the file is damaged.");
  return Number(value);
}

interface InflateBudget {
  remainingBytes: number;
  limits: ParseLimits;
  signal: AbortSignal | undefined;
  strict: OpenZipOptions["strict"];
}

/** The entry's bytes are what the archive recorded: the same size and CRC-32. */
function checkEntry(entry: ZipEntry, bytes: Uint8Array): void {
  if (bytes.byteLength !== entry.declaredSize) {
    throw malformed(`The archive is damaged: the entry ${entry.name} holds ${bytes.byteLength} bytes where its header says ${entry.declaredSize}.`);
  }
  if (crc32(bytes) >>> 0 !== entry.crc32 >>> 0) throw malformed(`The archive is damaged: the entry ${entry.name} does not match its checksum (CRC-32).`);
}

function entryTooLarge(entry: ZipEntry, maxEntryBytes: number): ChunkpadError {
  return new ChunkpadError("PARSE_ZIP_BOMB", `The archive entry ${entry.name} expands past the limit of ${Math.round(maxEntryBytes / MEGABYTE)} MB for one entry.`, {
    details: { limit: "maxEntryBytes", value: maxEntryBytes },
  });
}

function inflateEntry(data: Uint8Array, view: DataView, entry: ZipEntry, budget: InflateBudget): Uint8Array {
  if (entry.encrypted) {
    throw new ChunkpadError("PARSE_ENCRYPTED", `The archive entry ${entry.name} is password-protected with zip encryption, which Chunkpad cannot open; save an unprotected copy.`);
  }
  const header = entry.localHeaderOffset;
  if (header + 30 > data.byteLength || view.getUint32(header, true) !== LOCAL_FILE_HEADER) {
    throw malformed(`The zip archive is damaged: the entry ${entry.name} is missing or truncated; re-save the document from its application.`);
  }
  const start = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true);
  const end = start + entry.compressedSize;
  if (end > data.byteLength) {
    throw malformed(`The zip archive is truncated: the entry ${entry.name} runs past the end of the file; the file was probably cut short while copying or downloading.`);
  }
  const compressed = data.subarray(start, end);
  const maxEntryBytes = budget.strict?.maxEntryBytes ?? Number.POSITIVE_INFINITY;
  if (entry.declaredSize > maxEntryBytes) throw entryTooLarge(entry, maxEntryBytes);

  if (entry.method === 0) {
    if (compressed.byteLength > budget.remainingBytes) throw tooLarge(budget.limits);
    if (compressed.byteLength > maxEntryBytes) throw entryTooLarge(entry, maxEntryBytes);
    return compressed;
  }
  if (entry.method !== 8) {
    throw new ChunkpadError("PARSE_UNSUPPORTED", `The archive entry ${entry.name} uses zip compression method ${entry.method}, which Chunkpad does not read; re-save the document from its application.`);
  }

  const chunks: Uint8Array[] = [];
  let produced = 0;
  let consumed = 0;
  const inflater = new Inflate((chunk) => {
    produced += chunk.byteLength;
    // Throwing here unwinds out of push(): nothing more is inflated.
    if (produced > budget.remainingBytes) throw tooLarge(budget.limits);
    if (produced > maxEntryBytes) throw entryTooLarge(entry, maxEntryBytes);
    if (!budget.strict && produced > RATIO_CHECK_AFTER_BYTES && produced > consumed * MAX_COMPRESSION_RATIO) throw tooDense(entry);
    chunks.push(chunk);
  });
  try {
    let offset = 0;
    do {
      throwIfAborted(budget.signal);
      const step = compressed.subarray(offset, offset + INFLATE_STEP_BYTES);
      offset += step.byteLength;
      consumed = offset;
      inflater.push(step, offset >= compressed.byteLength);
    } while (offset < compressed.byteLength);
  } catch (error) {
    if (isChunkpadError(error)) throw error;
    throw new ChunkpadError("PARSE_MALFORMED", `The zip archive is damaged: the entry ${entry.name} cannot be decompressed; re-save the document from its application.`, { cause: error });
  }
  return concat(chunks, produced);
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const result = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    result.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return result;
}

function notZip(data: Uint8Array): ChunkpadError {
  const ole = data[0] === 0xd0 && data[1] === 0xcf && data[2] === 0x11 && data[3] === 0xe0;
  if (ole) {
    return malformed(
      "The file is not a zip-based document but an OLE compound file: either a password-protected Office document or an old binary .doc/.xls/.ppt with the wrong extension. Give the password, or save it in the modern format.",
    );
  }
  const zipStart = data[0] === 0x50 && data[1] === 0x4b;
  return malformed(
    zipStart
      ? "The zip archive is truncated (its directory at the end is missing); the file was probably cut short while copying or downloading."
      : "The file is not a zip archive, so it is not the document its extension says; check the file or rename it to its real type.",
  );
}

function tooManyEntries(count: number, limits: ParseLimits): ChunkpadError {
  return new ChunkpadError(
    "PARSE_ZIP_BOMB",
    `The archive holds ${count} or more entries, past the safety limit of ${limits.maxArchiveEntries}; if you trust the file, raise ingest.maxArchiveEntries in the config.`,
    { details: { limit: "maxArchiveEntries", value: limits.maxArchiveEntries } },
  );
}

function tooLarge(limits: ParseLimits): ChunkpadError {
  const megabytes = Math.round((limits.maxDecompressedBytes / MEGABYTE) * 10) / 10;
  return new ChunkpadError(
    "PARSE_ZIP_BOMB",
    `The archive expands past the safety limit of ${megabytes} MB; if you trust the file, raise ingest.maxDecompressedMb in the config.`,
    { details: { limit: "maxDecompressedBytes", value: limits.maxDecompressedBytes } },
  );
}

function tooDense(entry: ZipEntry): ChunkpadError {
  return new ChunkpadError(
    "PARSE_ZIP_BOMB",
    `The archive entry ${entry.name} expands more than ${MAX_COMPRESSION_RATIO} times its compressed size, which real documents never do (it is built to exhaust memory); Chunkpad will not read it.`,
    { details: { limit: "compressionRatio", value: MAX_COMPRESSION_RATIO } },
  );
}
