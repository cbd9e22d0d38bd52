/**
 * The words of a pandoc `.native` document tree (its `Str "..."` leaves), with Haskell string
 * escapes decoded: `\233` is a code point, `\&` an empty separator, `\"` and `\\` themselves.
 * `bodyOnly` skips the metadata block before the body list.
 */
export function nativeWords(native: string, { bodyOnly = false }: { bodyOnly?: boolean } = {}): string[] {
  const text = bodyOnly ? native.slice(Math.max(0, native.search(/\n {2}\[/))) : native;
  return [...text.matchAll(/Str "((?:[^"\\]|\\.)*)"/g)]
    .map((match) =>
      (match[1] ?? "")
        .replace(/\\(\d+)(?:\\&)?/g, (_, code: string) => String.fromCodePoint(Number(code)))
        .replace(/\\&/g, "")
        .replace(/\\(["\\])/g, "$1"),
    )
    .filter((word) => word.trim() !== "");
}
