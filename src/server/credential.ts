import { createHmac, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { serverProof, TOKEN_HEADER } from "./api-shapes.js";

/**
 * Who may talk to `chunkpad serve` (decision 032): whoever holds the session token. Programs
 * (the CLI, the warm daemon's clients, MCP over HTTP) send it in X-Chunkpad-Token, read from the
 * 0600 server.json; a browser gets it once in the launch URL `serve` prints or opens
 * (`/?token=…`), which this module exchanges for an HttpOnly, SameSite=Strict cookie and
 * removes from the address bar. Without either, `/` (and any other page) is a short page saying
 * how to open the app, and everything else is 401. The page's scripts never see a secret.
 */

export const SESSION_COOKIE = "chunkpad_session";
/** The one route open without a credential: the server proves it knows the token (decision 033). */
export const HELLO_PATH = "/api/hello";

export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The cookie's value: derived from the token, so it names this server's run and nothing else. */
function cookieValueFor(token: string): string {
  return createHmac("sha256", token).update("chunkpad-session-cookie").digest("hex");
}

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** The page a browser without the credential gets: how to open the app, nothing else. */
export function signInPage(reason: string, options: { reload?: boolean } = {}): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Chunkpad</title>${options.reload ? '<meta http-equiv="refresh" content="0">' : ""}
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}code{background:#eee;padding:0 .25rem;border-radius:3px}@media (prefers-color-scheme:dark){body{background:#111;color:#ddd}code{background:#333}}</style></head>
<body>
<h1>Chunkpad is running here</h1>
<p>${reason}</p>
<p>To open the app, use the link <code>chunkpad serve</code> printed in its terminal (it ends in <code>?token=…</code>), or run <code>chunkpad serve --open</code> again.</p>
</body>
</html>
`;
}

/** A page route (what a browser navigates to), as opposed to the API, MCP and the app's files. */
function isPage(pathname: string): boolean {
  return !pathname.startsWith("/api/") && !pathname.startsWith("/assets/") && pathname !== "/mcp" && pathname !== "/api";
}

function unauthorized(c: Context) {
  const page = isPage(c.req.path) && (c.req.method === "GET" || c.req.method === "HEAD");
  // A navigation that started on another site (a link, the page --open writes) comes without
  // the SameSite=Strict cookie even when the browser has it: loading again from this origin sends
  // it. Once only: the reload is same-origin, so a browser without the cookie then gets the page.
  const reload = c.req.header("sec-fetch-site") === "cross-site" && c.req.header("sec-fetch-mode") === "navigate";
  if (page) return c.body(signInPage("This browser has not been let in yet, or the server has restarted since it was.", { reload }), 401, PAGE_HEADERS);
  return c.json({ code: "UNAUTHORIZED", message: `Send the session token in the X-Chunkpad-Token header (it is in server.json in Chunkpad's data folder while the server runs), or open the app through the link chunkpad serve printed.`, retryable: false }, 401);
}

/**
 * Runs after the Host check. The launch URL sets the cookie; every other request needs the
 * header or the cookie. A request carried by the cookie alone must come from this origin: a
 * page of another local server (another port is the same site, so the cookie goes along) may
 * neither change anything (Origin) nor fetch data with it (Sec-Fetch-Site).
 */
export function requireCredential(options: { token: string; origins: ReadonlySet<string> }): MiddlewareHandler {
  const cookieValue = cookieValueFor(options.token);
  return async (c, next) => {
    const reads = c.req.method === "GET" || c.req.method === "HEAD";
    if (reads && c.req.path === HELLO_PATH) {
      const nonce = c.req.query("nonce") ?? "";
      if (!/^[0-9a-f]{32,128}$/.test(nonce)) return c.json({ code: "INVALID_ARGUMENT", message: "nonce: send 32 to 128 hex digits.", retryable: false }, 400);
      return c.json({ server: "chunkpad", pid: process.pid, proof: serverProof(options.token, nonce) }, 200, { "cache-control": "no-store" });
    }
    // Only a page's launch URL carries the token in its query: API requests are not parsed again.
    const url = reads && isPage(c.req.path) ? new URL(c.req.url) : undefined;
    const offered = url?.searchParams.get("token") ?? null;
    if (url !== undefined && offered !== null) {
      if (!sameSecret(offered, options.token)) {
        return c.body(signInPage("This link is not (or no longer) this server's: the server may have been restarted since it was printed."), 401, PAGE_HEADERS);
      }
      url.searchParams.delete("token");
      const clean = `${url.pathname}${url.search}`;
      return c.body(null, 303, {
        location: clean,
        "set-cookie": `${SESSION_COOKIE}=${cookieValue}; Path=/; HttpOnly; SameSite=Strict`,
        "cache-control": "no-store",
        "referrer-policy": "no-referrer",
      });
    }
    if (sameSecret(c.req.header(TOKEN_HEADER), options.token)) return next();
    if (!sameSecret(getCookie(c, SESSION_COOKIE), cookieValue)) return unauthorized(c);
    const origin = c.req.header("origin");
    if (!reads && (origin === undefined || !options.origins.has(origin))) {
      return c.json({ code: "FORBIDDEN", message: `Changes need a request from this server's own page${origin === undefined ? "" : `, not ${origin}`}.`, retryable: false }, 403);
    }
    const site = c.req.header("sec-fetch-site");
    if ((site === "cross-site" || site === "same-site") && c.req.header("sec-fetch-mode") !== "navigate") {
      return c.json({ code: "FORBIDDEN", message: "This server's data is for its own page only.", retryable: false }, 403);
    }
    return next();
  };
}
