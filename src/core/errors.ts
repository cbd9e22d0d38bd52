import type { NextStep } from "./next-step.js";

/**
 * The error catalogue. Every error Chunkpad raises on purpose is a ChunkpadError with a code
 * from this list and a message that tells the user what to do next. Faces map codes to exit
 * codes, HTTP statuses or MCP tool errors; nothing below them prints.
 */
export const ERROR_CODES = {
  // input and configuration
  INVALID_ARGUMENT: "a command-line flag, API field or config value is invalid",
  CONFIG_INVALID: "the config file cannot be read or does not validate",
  FOLDER_NOT_FOUND: "the folder does not exist or is not a directory",
  FOLDER_NOT_INDEXED: "the folder has not been added yet",
  FOLDER_BUSY: "another Chunkpad process is adding, processing or embedding the folder",
  FOLDER_ELSEWHERE: "the folder belongs to another machine sharing the database: only that machine processes, embeds, watches or removes it",
  NOT_FOUND: "a document, chunk, conversation or reference does not exist",

  // parsing (per file; a run reports them and goes on)
  PARSE_UNSUPPORTED: "the file type is not supported",
  PARSE_ENCRYPTED: "the document is encrypted and needs a password",
  PARSE_WRONG_PASSWORD: "the password given does not open the document",
  PARSE_MALFORMED: "the document is damaged or not what its extension says",
  PARSE_EMPTY: "the document has no text",
  PARSE_NO_TEXT_LAYER: "the document is scanned images with no text layer",
  PARSE_ZIP_BOMB: "the archive expands past the safety limits",
  PARSE_TOO_LARGE: "the file is larger than the configured size limit",
  PARSE_TIMEOUT: "parsing took longer than the per-file time limit",
  PARSE_FAILED: "the parser failed for another reason",
  PARSE_GARBLED: "the extracted text is garbage or a rights-management placeholder, not the document's text",
  SOURCE_UNREADABLE: "the file could not be read (permission, or a read error); tried again on the next run",
  SOURCE_CHANGED: "the file changed while it was being read; read again on the next run",

  // chunk files
  CHUNK_FILE_CONFLICT: "a chunk file was edited by hand and its source changed too",
  CHUNK_FILE_INVALID: "a chunk file cannot be parsed, written, or holds a chunk too large to index",
  CHUNK_FILE_LINK: "a chunk file or folder in the chunk folder is a symbolic link, which Chunkpad never follows",

  // storage
  DATABASE_ERROR: "the database could not be opened or written",
  DATABASE_LOCKED: "another Chunkpad process holds the database",
  SCHEMA_TOO_NEW: "the database was written by a newer Chunkpad",
  VECTOR_UNAVAILABLE: "sqlite-vec could not be loaded; keyword search still works",

  // models and embedding
  MODEL_CONSENT_REQUIRED: "a model download needs the user's consent",
  MODEL_NOT_DOWNLOADED: "the model is not in the local cache",
  MODEL_DOWNLOAD_FAILED: "the model download failed",
  MODEL_NOT_FOUND: "the hub or server has no such model",
  MODEL_LOAD_FAILED: "the model files are present but could not be loaded",
  EMBEDDING_MISMATCH: "the vectors in the database were made by another model or settings",
  EMBEDDING_FAILED: "the embedding provider failed",
  RUNTIME_NOT_INSTALLED: "an optional part of Chunkpad (local embedding runtime, local Llama) is not installed",

  // LLM providers
  LLM_AUTH: "the API key was rejected",
  LLM_RATE_LIMITED: "the provider is rate limiting requests",
  LLM_UNAVAILABLE: "the provider's server cannot be reached or is down",
  LLM_MODEL_NOT_FOUND: "the provider has no such model",
  LLM_CONTEXT_TOO_LONG: "the prompt is longer than the model's context window",
  LLM_STREAM_INTERRUPTED: "the answer stream was cut off",
  LLM_BAD_RESPONSE: "the provider answered with something unexpected",
  LLM_NOT_CONFIGURED: "no LLM provider is configured",
  KEYCHAIN_UNAVAILABLE: "no OS keychain is available",

  // anything else
  CANCELLED: "the operation was cancelled",
  INTERNAL: "a bug in Chunkpad",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorOutcome {
  /** CLI exit code: 1 the user can fix it, 3 a bug or an outside failure. */
  exitCode: 1 | 3;
  /** HTTP status the server answers with. */
  httpStatus: number;
  /** True when the same request may succeed later without the user changing anything. */
  retryable: boolean;
}

const user = (httpStatus: number): ErrorOutcome => ({ exitCode: 1, httpStatus, retryable: false });
/** The user can fix it, but trying the same thing again later may also succeed (a busy folder, a flaky server). */
const retryable = (httpStatus: number): ErrorOutcome => ({ exitCode: 1, httpStatus, retryable: true });
const outside = (httpStatus: number): ErrorOutcome => ({ exitCode: 3, httpStatus, retryable: false });

/**
 * How every face reports each code: one table, so the CLI and the HTTP API never disagree.
 * `Record<ErrorCode, …>` makes a new code without a row a type error.
 * Exit 3 stays for bugs and the database, as before; outside services the user can point
 * elsewhere (LLM, hub) exit 1 with a next step.
 */
export const ERROR_TABLE: Readonly<Record<ErrorCode, ErrorOutcome>> = {
  INVALID_ARGUMENT: user(400),
  CONFIG_INVALID: user(400),
  FOLDER_NOT_FOUND: user(404),
  FOLDER_NOT_INDEXED: user(404),
  // Another process is writing the folder: waiting, or trying again later, succeeds.
  FOLDER_BUSY: retryable(409),
  // Run it on the machine that owns the folder, or take the folder over deliberately.
  FOLDER_ELSEWHERE: user(409),
  NOT_FOUND: user(404),

  PARSE_UNSUPPORTED: user(415),
  PARSE_ENCRYPTED: user(422),
  PARSE_WRONG_PASSWORD: user(422),
  PARSE_MALFORMED: user(422),
  PARSE_EMPTY: user(422),
  PARSE_NO_TEXT_LAYER: user(422),
  PARSE_GARBLED: user(422),
  PARSE_ZIP_BOMB: user(422),
  PARSE_TOO_LARGE: user(413),
  PARSE_TIMEOUT: user(422),
  PARSE_FAILED: user(422),
  SOURCE_UNREADABLE: retryable(422),
  SOURCE_CHANGED: retryable(409),

  CHUNK_FILE_CONFLICT: user(409),
  CHUNK_FILE_INVALID: user(422),
  CHUNK_FILE_LINK: user(422),

  DATABASE_ERROR: outside(500),
  DATABASE_LOCKED: retryable(423),
  SCHEMA_TOO_NEW: user(409),
  VECTOR_UNAVAILABLE: user(503),

  MODEL_CONSENT_REQUIRED: user(403),
  MODEL_NOT_DOWNLOADED: user(409),
  MODEL_DOWNLOAD_FAILED: retryable(502),
  MODEL_NOT_FOUND: user(404),
  MODEL_LOAD_FAILED: user(500),
  EMBEDDING_MISMATCH: user(409),
  EMBEDDING_FAILED: retryable(502),
  RUNTIME_NOT_INSTALLED: user(501),

  LLM_AUTH: user(401),
  LLM_RATE_LIMITED: retryable(429),
  LLM_UNAVAILABLE: retryable(503),
  LLM_MODEL_NOT_FOUND: user(404),
  LLM_CONTEXT_TOO_LONG: user(413),
  LLM_STREAM_INTERRUPTED: retryable(502),
  LLM_BAD_RESPONSE: retryable(502),
  LLM_NOT_CONFIGURED: user(409),
  KEYCHAIN_UNAVAILABLE: user(501),

  CANCELLED: user(499),
  INTERNAL: outside(500),
};

/**
 * The brand every ChunkpadError carries. `Symbol.for` is one symbol per process, so an error
 * made by another copy of this module (a second install, a bundled plugin, a worker's
 * re-created error) is still recognised, where `instanceof` would say no.
 */
export const CHUNKPAD_ERROR_BRAND: unique symbol = Symbol.for("chunkpad.error") as never;

export interface ChunkpadErrorOptions {
  cause?: unknown;
  /** HTTP status from a provider, when there was one. */
  statusCode?: number;
  /** True when retrying the same call may succeed (408/409/429/5xx, network). */
  isRetryable?: boolean;
  /** Free-form details safe to show (never secrets). */
  details?: Record<string, unknown>;
  /** What the user can do about it, as data each face words its own way (the message names no command). */
  nextSteps?: NextStep[];
}

export class ChunkpadError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number | undefined;
  readonly isRetryable: boolean;
  readonly details: Record<string, unknown> | undefined;
  readonly nextSteps: NextStep[] | undefined;
  readonly [CHUNKPAD_ERROR_BRAND] = true;

  constructor(code: ErrorCode, message: string, options: ChunkpadErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ChunkpadError";
    this.code = code;
    this.statusCode = options.statusCode;
    this.isRetryable = options.isRetryable ?? false;
    this.details = options.details;
    this.nextSteps = options.nextSteps;
  }
}

/** True for a ChunkpadError from any copy of this module (by its brand, not `instanceof`). */
export function isChunkpadError(value: unknown, code?: ErrorCode): value is ChunkpadError {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as { [CHUNKPAD_ERROR_BRAND]?: unknown; code?: unknown };
  if (candidate[CHUNKPAD_ERROR_BRAND] !== true || typeof candidate.code !== "string" || !Object.hasOwn(ERROR_TABLE, candidate.code)) return false;
  return code === undefined || candidate.code === code;
}

/** The table row for any thrown value: unknown errors are bugs (INTERNAL). */
export function errorOutcome(error: unknown): ErrorOutcome & { code: ErrorCode } {
  const code: ErrorCode = isChunkpadError(error) ? error.code : "INTERNAL";
  return { code, ...ERROR_TABLE[code] };
}

/** Status codes worth retrying, as the providers document them. */
export function isRetryableStatus(statusCode: number): boolean {
  return statusCode === 408 || statusCode === 409 || statusCode === 429 || statusCode >= 500;
}

/** A message for any thrown value, without a stack trace. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
