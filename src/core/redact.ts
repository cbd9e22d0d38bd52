import { ChunkpadError, isChunkpadError } from "./errors.js";

/**
 * One redaction for every message that may carry a secret: provider errors (a server may echo
 * the key it was sent), download errors (a token in a hub URL), and the CLI's last-resort error
 * printer. It removes the secrets it is given, and anything shaped like one.
 */

export const REDACTED = "[redacted]";
/** Shorter "secrets" would wipe ordinary words out of messages. */
const MINIMUM_SECRET_LENGTH = 4;

const SECRET_SHAPES: readonly [RegExp, string][] = [
  // Authorization header values.
  [/\b([Bb]earer)\s+[A-Za-z0-9._~+/=-]{4,}/g, `$1 ${REDACTED}`],
  // Provider keys: OpenAI sk-..., sk-proj-..., Anthropic sk-ant-...; Hugging Face hf_...
  [/\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{8,}/g, REDACTED],
  [/\bhf_[A-Za-z0-9]{8,}/g, REDACTED],
  // Named fields and headers: x-api-key: ..., "api_key": "...", access_token=..., ?key=...
  [/((?:x-)?api[-_]?key|access[-_]?token|auth[-_]?token|secret|password)(["']?\s*[:=]\s*["']?)[^\s"'&,;)}\]]+/gi, `$1$2${REDACTED}`],
  [/([?&](?:key|token|sig|signature)=)[^\s&#"']+/gi, `$1${REDACTED}`],
  // user:password@ in URLs.
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi, `$1${REDACTED}@`],
];

/** Names of environment variables whose values are secrets (ANTHROPIC_API_KEY, HF_TOKEN, ...). */
const SECRET_VARIABLE_PATTERN = /(API_KEY|TOKEN|SECRET|PASSWORD)$/i;

export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let result = text;
  const known = secrets.filter((secret): secret is string => secret !== undefined && secret.trim().length >= MINIMUM_SECRET_LENGTH).map((secret) => secret.trim());
  // Longest first, so a key that contains another is removed whole.
  for (const secret of known.sort((a, b) => b.length - a.length)) result = result.split(secret).join(REDACTED);
  for (const [pattern, replacement] of SECRET_SHAPES) result = result.replace(pattern, replacement);
  return result;
}

/** The values of secret-looking environment variables, for redacting what a process prints. */
export function secretsInEnvironment(env: Record<string, string | undefined>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_VARIABLE_PATTERN.test(name) && value !== undefined)
    .map(([, value]) => value as string);
}

/** Secret values in request headers (authorization, x-api-key, api-key), for redacting the answer's error. */
export function secretsInHeaders(headers: Record<string, string> | undefined): string[] {
  if (!headers) return [];
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!/^(authorization|x-api-key|api-key|proxy-authorization)$/i.test(name)) continue;
    secrets.push(value, value.replace(/^\s*\w+\s+/, ""));
  }
  return secrets;
}

/** The same error with secrets removed from its message and details (code, status and cause stay). */
export function redactError<T>(error: T, secrets: readonly (string | undefined)[] = []): T | ChunkpadError {
  if (!isChunkpadError(error)) return error;
  const message = redactSecrets(error.message, secrets);
  const details = error.details === undefined ? undefined : (redactValue(error.details, secrets) as Record<string, unknown>);
  if (message === error.message && JSON.stringify(details) === JSON.stringify(error.details)) return error;
  return new ChunkpadError(error.code, message, { cause: error.cause, statusCode: error.statusCode, isRetryable: error.isRetryable, details });
}

function redactValue(value: unknown, secrets: readonly (string | undefined)[]): unknown {
  if (typeof value === "string") return redactSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item, secrets)]));
  return value;
}

/** Query parameters that carry credentials in the URLs users paste (signed links, proxies, keys). */
const SECRET_QUERY_NAME = /^(?:key|api[-_]?key|apikey|token|access[-_]?token|auth|sig|signature|secret|password|x-amz-signature|x-amz-credential|x-amz-security-token|code)$/i;

/**
 * A URL as it may be shown (config list, the settings API, messages): a user name and password
 * and credential-like query values replaced by [redacted]; the place it points at stays readable.
 * Text that is not a URL goes through redactSecrets.
 */
export function redactUrl(text: string): string {
  const cleaned = redactSecrets(text);
  let url: URL;
  try {
    url = new URL(cleaned);
  } catch {
    return cleaned;
  }
  let changed = false;
  if (url.username !== "" || url.password !== "") {
    url.username = REDACTED;
    url.password = "";
    changed = true;
  }
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_QUERY_NAME.test(name)) {
      url.searchParams.set(name, REDACTED);
      changed = true;
    }
  }
  if (!changed) return cleaned;
  try {
    return decodeURI(url.href);
  } catch {
    // An odd escape in the path: shown encoded.
    return url.href;
  }
}
