/**
 * Writes a plain, valid PDF with one page of Helvetica text per entry: enough to measure how
 * the PDF path behaves on very long documents without shipping one.
 */
export function makeTextPdf(pages: string[][]): Buffer {
  const objects: string[] = [];
  const pageIds: number[] = [];
  // 1: catalog, 2: pages, 3: font; pages and their content streams follow.
  const fontId = 3;
  let nextId = 4;
  const pageObjects: string[] = [];
  for (const lines of pages) {
    const pageId = nextId++;
    const contentId = nextId++;
    pageIds.push(pageId);
    const escaped = lines.map((line) => line.replace(/[\\()]/g, (character) => `\\${character}`));
    const stream = `BT /F1 11 Tf 50 780 Td 14 TL ${escaped.map((line) => `(${line}) Tj T*`).join(" ")} ET`;
    pageObjects[pageId] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${fontId} 0 R >> >> /Contents ${contentId} 0 R >>`;
    pageObjects[contentId] = `<< /Length ${Buffer.byteLength(stream)} >>\nstream\n${stream}\nendstream`;
  }
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pageIds.length} >>`;
  objects[fontId] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
  for (let id = 4; id < nextId; id++) objects[id] = pageObjects[id] ?? "null";

  let body = "%PDF-1.7\n";
  const offsets: number[] = [];
  for (let id = 1; id < nextId; id++) {
    offsets[id] = Buffer.byteLength(body);
    body += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xrefOffset = Buffer.byteLength(body);
  body += `xref\n0 ${nextId}\n0000000000 65535 f \n`;
  for (let id = 1; id < nextId; id++) body += `${String(offsets[id]).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${nextId} /Root 1 0 R >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  return Buffer.from(body, "latin1");
}

/** Deterministic filler prose for page n. */
export function fillerPage(page: number, lines = 40): string[] {
  const words = ["archive", "ledger", "harbor", "meadow", "signal", "lantern", "orchard", "compass", "granite", "willow", "summit", "cipher"];
  return Array.from({ length: lines }, (_, line) =>
    Array.from({ length: 12 }, (_, word) => words[(page * 7 + line * 3 + word) % words.length]).join(" ") + ` (page ${page} line ${line + 1}).`,
  );
}
