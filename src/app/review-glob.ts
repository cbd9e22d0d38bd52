/**
 * Glob patterns for `chunkpad include/exclude`, matched against source paths relative to a
 * folder ("reports/q3.pdf"). `*` and `?` stay within one path segment, `**` crosses segments,
 * `[abc]`/`[!abc]` are character classes and `{pdf,docx}` are alternatives. A pattern without
 * a slash matches the file name at any depth, as in .gitignore: "*.pdf" means every PDF. Pure.
 */

const GLOB_CHARACTERS = /[*?[{]/;

export function isGlobPattern(text: string): boolean {
  return GLOB_CHARACTERS.test(text);
}

export function matchesGlob(relativePath: string, pattern: string): boolean {
  const normalized = pattern.replace(/\\/g, "/").replace(/^\.\//, "").replace(/^\/+/, "");
  const expression = new RegExp(`^${globSource(normalized)}$`, "u");
  if (expression.test(relativePath)) return true;
  if (normalized.includes("/")) return false;
  const name = relativePath.slice(relativePath.lastIndexOf("/") + 1);
  return expression.test(name);
}

/** The regular-expression source for a glob pattern (without anchors). */
export function globSource(pattern: string): string {
  let source = "";
  let index = 0;
  while (index < pattern.length) {
    const character = pattern[index] ?? "";
    if (character === "*") {
      if (pattern[index + 1] === "*") {
        const slashFollows = pattern[index + 2] === "/";
        source += slashFollows ? "(?:.*/)?" : ".*";
        index += slashFollows ? 3 : 2;
      } else {
        source += "[^/]*";
        index += 1;
      }
      continue;
    }
    if (character === "?") {
      source += "[^/]";
      index += 1;
      continue;
    }
    if (character === "[") {
      const close = pattern.indexOf("]", index + 2);
      if (close !== -1) {
        let body = pattern.slice(index + 1, close);
        const negated = body.startsWith("!") || body.startsWith("^");
        if (negated) body = body.slice(1);
        source += `[${negated ? "^/" : ""}${body.replace(/[\\\]]/g, "\\$&")}]`;
        index = close + 1;
        continue;
      }
    }
    if (character === "{") {
      const close = pattern.indexOf("}", index + 1);
      if (close !== -1) {
        const alternatives = pattern.slice(index + 1, close).split(",").map(globSource);
        source += `(?:${alternatives.join("|")})`;
        index = close + 1;
        continue;
      }
    }
    source += character.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    index += 1;
  }
  return source;
}
