/**
 * The byte strings to try for a password the user typed. pdf.js takes a password as a "byte
 * string" (one character per byte) and does not prepare it as the PDF spec asks: revisions
 * 2-4 want PDFDocEncoding (Latin-1 here), revision 5 UTF-8, revision 6 UTF-8 after SASLprep,
 * which pdf.js itself UTF-8-decodes once more. Producers also get this wrong in both
 * directions, so the variants are tried in turn until one opens. For an ASCII password
 * they are all the same string, so it is tried once.
 */
export function passwordCandidates(password: string): string[] {
  const prepared = prepareForSasl(password);
  const candidates = [
    prepared,
    password,
    toUtf8ByteString(prepared),
    toUtf8ByteString(password),
    // Survives pdf.js's own UTF-8 decoding for revision 6, leaving UTF-8 bytes.
    toUtf8ByteString(toUtf8ByteString(prepared)),
  ];
  return [...new Set(candidates)];
}

/**
 * The parts of SASLprep (RFC 4013) that change real passwords: characters "mapped to
 * nothing" removed, non-ASCII spaces turned into spaces, NFKC normalization.
 */
export function prepareForSasl(password: string): string {
  return Array.from(password)
    .filter((character) => !isMappedToNothing(character.codePointAt(0) ?? 0))
    .join("")
    .replace(/[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g, " ")
    .normalize("NFKC");
}

/** RFC 3454 table B.1: soft hyphen, joiners, variation selectors and the like. */
function isMappedToNothing(codePoint: number): boolean {
  return (
    [0x00ad, 0x034f, 0x1806, 0x2060, 0xfeff].includes(codePoint) ||
    (codePoint >= 0x180b && codePoint <= 0x180d) ||
    (codePoint >= 0x200b && codePoint <= 0x200d) ||
    (codePoint >= 0xfe00 && codePoint <= 0xfe0f)
  );
}

function toUtf8ByteString(text: string): string {
  return Buffer.from(text, "utf8").toString("latin1");
}
