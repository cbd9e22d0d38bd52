import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { afterAll, describe, expect, it } from "vitest";
import { CORPUS_DIR } from "../../test/helpers/parse.js";
import { chunkpadRejection } from "../../test/helpers/rejection.js";
import { DEFAULT_PARSE_LIMITS } from "../core/types.js";
import { parseFile } from "./parse-file.js";
import { garbledReason } from "./text-quality.js";

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-text-quality-"));
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

const parse = (filePath: string) => parseFile(filePath, { limits: DEFAULT_PARSE_LIMITS });
const write = (name: string, data: Uint8Array | string): string => {
  const filePath = path.join(directory, name);
  fs.writeFileSync(filePath, data);
  return filePath;
};

/** ASCII to EBCDIC code page 037, for letters, digits, space, full stop and newline. */
function toEbcdic(text: string): Uint8Array {
  const code = (character: string): number => {
    const point = character.charCodeAt(0);
    if (character === " ") return 0x40;
    if (character === ".") return 0x4b;
    if (character === "\n") return 0x25;
    if (/[0-9]/.test(character)) return 0xf0 + point - 48;
    const lower = character.toLowerCase();
    const offset = lower.charCodeAt(0) - 97;
    const base = offset < 9 ? 0x81 + offset : offset < 18 ? 0x91 + offset - 9 : 0xa2 + offset - 18;
    return character === lower ? base : base + 0x40;
  };
  return Uint8Array.from(Array.from(text, code));
}

describe("text that extraction mangles is flagged, not indexed", () => {
  it("rejects PDFs whose fonts map to characters of unrelated scripts or control codes (pdf.js corpus)", async () => {
    for (const name of ["issue5874.pdf", "complex_ttf_font.pdf"]) {
      const error = await chunkpadRejection(parse(path.join(CORPUS_DIR, "pdf.js/pdfs", name)));
      expect(error.code).toBe("PARSE_GARBLED");
      expect(error.message).toContain("garbage");
    }
  });

  it("drops the garbled pages of a PDF whose body font has no mapping, keeps the rest, and warns (TAMReview.pdf)", async () => {
    const document = await parse(path.join(CORPUS_DIR, "pdf.js/pdfs/TAMReview.pdf"));
    expect(document.warnings.some((warning) => /pages 2, 3, .*the text is garbage/.test(warning))).toBe(true);
    const text = document.blocks.map((block) => block.text).join("\n");
    expect(text).toContain("Overview of the Technology Acceptance Model");
    expect(Array.from(text).filter((character) => /\p{Cc}/u.test(character) && character !== "\n").length).toBeLessThan(text.length / 20);
  });

  it("keeps PDFs whose text is fine, tables of contents included", async () => {
    for (const name of ["bug886717.pdf", "ZapfDingbats.pdf", "freeculture.pdf"]) {
      const document = await parse(path.join(CORPUS_DIR, "pdf.js/pdfs", name));
      expect(document.warnings.filter((warning) => warning.includes("garbage"))).toEqual([]);
    }
  });

  it("rejects an EBCDIC text file", async () => {
    const filePath = write("mainframe.txt", toEbcdic("CUSTOMER RECORDS FOR 1987.\nThe quarterly report lists every account opened in the period.\n".repeat(20)));
    const error = await chunkpadRejection(parse(filePath));
    expect(error.code).toBe("PARSE_GARBLED");
    expect(error.message).toContain("EBCDIC");
  });

  it("rejects a rights-management placeholder instead of indexing it", async () => {
    const word = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`;
    const placeholder = "This document has restricted permission. Permission to view this document is currently restricted. Microsoft Office 2003 or later is required.";
    const docx = zipSync({
      "[Content_Types].xml": strToU8(`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`),
      "word/document.xml": strToU8(`<w:document ${word}><w:body><w:p><w:r><w:t>${placeholder}</w:t></w:r></w:p></w:body></w:document>`),
    });
    const error = await chunkpadRejection(parse(write("protected.docx", docx)));
    expect(error.code).toBe("PARSE_GARBLED");
    expect(error.message).toContain("rights management");
  });

  it("does not call real text of many languages garbage", () => {
    const samples = [
      "The river rose four metres overnight and the town council opened the school gym as a shelter for families.",
      "Библиотека хранит старинные карты и рукописи, а исследователи приходят каждый день, чтобы изучать их.",
      "北京大学图书馆收藏了许多古代地图和手稿，研究人员每天都来查阅这些珍贵的资料。東京の図書館で古い地図を調べています。",
      "مكتبة الجامعة تحتفظ بالعديد من الخرائط القديمة والمخطوطات، ويأتي الباحثون كل يوم لدراستها بعناية.",
      "| Item | Price |\n| --- | --- |\n| Tea | 3 |\n| Coffee | 4 |\n| Water | 1 |\n| Juice | 5 |",
      "Contents . . . . . . . . . . . . . . . . 3\nForeword . . . . . . . . . . . . . . . . . 5\nIntroduction . . . . . . . . . . . . . . 9",
    ];
    for (const sample of samples) expect(garbledReason(sample)).toBeUndefined();
    // "The quick brown fox jumps over the lazy dog", every letter one further on: a font mapped to the wrong letters.
    expect(garbledReason("Uif rvjdl cspxo gpy kvnqt pwfs uif mbaz eph. ".repeat(8))).toContain("do not form words");
    expect(garbledReason("\ue000\ue001\ue002\ue003 ".repeat(20))).toContain("private-use");
  });
});
