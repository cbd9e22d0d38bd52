import { createHmac } from "node:crypto";

/**
 * One reading of a failed request with no HTTP answer (refused, DNS, reset, timeout, TLS), for
 * every room that talks to a server: the model hub, remote embedders and LLM providers.
 */

/** The kinds a caller decides on (retry, "is the server running?"). */
export type NetworkFailure = "refused" | "dns" | "reset" | "timeout";

const KINDS: Record<string, NetworkFailure> = {
  ECONNREFUSED: "refused",
  ENOTFOUND: "dns",
  EAI_AGAIN: "dns",
  ECONNRESET: "reset",
  EPIPE: "reset",
  UND_ERR_SOCKET: "reset",
  ETIMEDOUT: "timeout",
  UND_ERR_CONNECT_TIMEOUT: "timeout",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
};

const REASONS: Record<string, string> = {
  ECONNREFUSED: "the connection was refused (nothing is listening there)",
  ENOTFOUND: "the host name could not be resolved (DNS)",
  EAI_AGAIN: "the host name could not be resolved (DNS is not answering)",
  ETIMEDOUT: "the connection timed out",
  ECONNRESET: "the connection was reset",
  EPIPE: "the connection was closed while sending",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  UND_ERR_CONNECT_TIMEOUT: "the connection timed out",
  UND_ERR_HEADERS_TIMEOUT: "the server did not answer in time",
  UND_ERR_BODY_TIMEOUT: "the server stopped sending data",
  UND_ERR_SOCKET: "the connection was closed by the server",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate could not be verified",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's TLS certificate could not be verified",
};

/** SDKs wrap the Node error several times (APIConnectionError → fetch failed → ECONNREFUSED). */
const MAX_DEPTH = 6;

/** The error codes along the cause chain, outermost first. */
function chainCodes(error: unknown): { codes: string[]; timeoutName: boolean } {
  const codes: string[] = [];
  let timeoutName = false;
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && current !== null && typeof current === "object"; depth += 1) {
    const { code, name, cause } = current as { code?: unknown; name?: unknown; cause?: unknown };
    if (typeof code === "string") codes.push(code);
    if (name === "APIConnectionTimeoutError") timeoutName = true;
    current = cause;
  }
  return { codes, timeoutName };
}

/** The kind of network failure anywhere in a cause chain, or undefined when it was not one. */
export function detectNetworkFailure(error: unknown): NetworkFailure | undefined {
  const { codes, timeoutName } = chainCodes(error);
  for (const code of codes) {
    const kind = KINDS[code];
    if (kind !== undefined) return kind;
  }
  return timeoutName ? "timeout" : undefined;
}

/** A short reason for a message ("the connection was refused (…)"); the error's own text otherwise. */
export function describeNetworkFailure(error: unknown): string {
  const { codes } = chainCodes(error);
  const known = codes.find((code) => REASONS[code] !== undefined);
  if (known !== undefined) return REASONS[known] as string;
  if (codes[0] !== undefined) return `the request failed (${codes[0]})`;
  return error instanceof Error ? error.message : String(error);
}

/** The header carrying the local server's session token (the HTTP API and the warm daemon's embed route). */
export const SESSION_TOKEN_HEADER = "x-chunkpad-token";

/**
 * What a server answers to a client's random nonce to show it holds the session token, before
 * the client sends the token itself (a stale server.json may name a port someone else listens on
 * now). Bound to its purpose, so it is never a valid credential or cookie.
 */
export function serverProof(token: string, nonce: string): string {
  return createHmac("sha256", token).update(`chunkpad-server-proof:${nonce}`).digest("hex");
}
