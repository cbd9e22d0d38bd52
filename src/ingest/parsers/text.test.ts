import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chunkpadRejection } from "../../../test/helpers/rejection.js";
import { DEFAULT_PARSE_LIMITS } from "../../core/types.js";
import { textParser } from "./text.js";

function parse(data: Uint8Array, path = "notes.txt") {
  return textParser.parse({ path, data, limits: DEFAULT_PARSE_LIMITS });
}

describe("textParser", () => {
  it("splits paragraphs at blank lines and keeps line breaks inside a paragraph", async () => {
    const directory = mkdtempSync(join(tmpdir(), "chunkpad-text-"));
    const file = join(directory, "letter.txt");
    writeFileSync(file, "Dear Ana,\r\n\r\nThe meeting moved\r\nto Friday.\r\n   \r\n\r\nBest,\r\nLuis\r\n");
    const document = await parse(readFileSync(file), file);
    expect(document.blocks).toEqual([
      { kind: "paragraph", text: "Dear Ana," },
      { kind: "paragraph", text: "The meeting moved\nto Friday." },
      { kind: "paragraph", text: "Best,\nLuis" },
    ]);
    expect(document.warnings).toEqual([]);
  });

  it("reads a UTF-16 file with a byte order mark", async () => {
    const body = "Première ligne\n\nDeuxième paragraphe";
    const bytes = new Uint8Array(2 + body.length * 2);
    bytes.set([0xff, 0xfe]);
    for (let index = 0; index < body.length; index++) new DataView(bytes.buffer).setUint16(2 + index * 2, body.charCodeAt(index), true);
    const document = await parse(bytes);
    expect(document.blocks.map((block) => block.text)).toEqual(["Première ligne", "Deuxième paragraphe"]);
  });

  it("reads a legacy windows-1252 file", async () => {
    const document = await parse(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x63, 0x72, 0xe8, 0x6d, 0x65]));
    expect(document.blocks).toEqual([{ kind: "paragraph", text: "café crème" }]);
  });

  it("reports an empty or whitespace-only file as PARSE_EMPTY", async () => {
    expect((await chunkpadRejection(parse(new Uint8Array()))).code).toBe("PARSE_EMPTY");
    expect((await chunkpadRejection(parse(new TextEncoder().encode(" \n\t\r\n  \n")))).code).toBe("PARSE_EMPTY");
    // A UTF-8 byte order mark and nothing else.
    expect((await chunkpadRejection(parse(new Uint8Array([0xef, 0xbb, 0xbf])))).code).toBe("PARSE_EMPTY");
  });

  it("reports binary data named .txt as malformed", async () => {
    const bytes = Uint8Array.from({ length: 2048 }, (_, index) => (index * 37 + 11) % 32);
    const error = await chunkpadRejection(parse(bytes, "image.txt"));
    expect(error.code).toBe("PARSE_MALFORMED");
    expect(error.message).toContain("binary data");
  });
});
