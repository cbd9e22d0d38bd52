import picomatch from "picomatch";

/**
 * Glob patterns for `chunkpad include/exclude`, matched against source paths relative to a
 * folder ("reports/q3.pdf") with picomatch. `*` and `?` stay within one path segment, `**`
 * crosses segments, `[abc]`/`[!abc]` are character classes, `{pdf,docx}` (nested too) and
 * `{1..3}` are alternatives, and dotfiles match like any other file. A pattern without a slash
 * matches the file name at any depth, as in .gitignore: "*.pdf" means every PDF. Pure.
 */

const GLOB_CHARACTERS = /[*?[{]/;

export function isGlobPattern(text: string): boolean {
  return GLOB_CHARACTERS.test(text);
}

export function matchesGlob(relativePath: string, pattern: string): boolean {
  const normalized = pattern.replace(/^\.\//, "").replace(/^\/+/, "");
  // Parentheses are literal: file names like "Report (1).pdf" are common, extglobs are not
  // offered. "[!" is the POSIX negation picomatch only knows as "[^".
  const source = normalized.replace(/[()]/g, "\\$&").replace(/\[!/g, "[^");
  const matcher = picomatch(source, { dot: true, noextglob: true });
  if (matcher(relativePath)) return true;
  if (normalized.includes("/")) return false;
  return matcher(relativePath.slice(relativePath.lastIndexOf("/") + 1));
}
