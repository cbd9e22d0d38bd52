import * as fs from "node:fs";
import * as path from "node:path";
import mammoth from "mammoth";
import { describe, expect, it } from "vitest";
import { recordingParser } from "../../test/helpers/parse.js";
import { thrownBy } from "../../test/helpers/rejection.js";
import { isChunkpadError } from "../core/errors.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument, type Parser } from "../core/types.js";
import { decryptOoxml, detectOfficeEncryption, withOfficeDecryption } from "./office-crypto.js";
import { readOle, writeOle } from "./office-crypto/ole.js";
import { legacyRc4Keys } from "./office-crypto/rc4.js";

const CRYPTO = path.resolve("../shared/corpus/msoffcrypto-tool");
const PASSWORD = "Password1234_";

function read(relative: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(path.join(CRYPTO, relative)));
}

/** A real .docx reader for the round trip: mammoth's raw text, one paragraph per line. */
const mammothParser: Parser = {
  name: "docx",
  extensions: [".docx"],
  async parse(input) {
    const { value } = await mammoth.extractRawText({ buffer: Buffer.from(input.data) });
    const blocks = value
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((text) => ({ kind: "paragraph" as const, text }));
    return { blocks, warnings: [] };
  },
};

function parseWith(parser: Parser, data: Uint8Array, password?: string): Promise<ParsedDocument> {
  return parser.parse({ path: "/documents/secret.docx", data, password, limits: DEFAULT_PARSE_LIMITS });
}

describe("detectOfficeEncryption", () => {
  it.each([
    ["inputs/example_password.docx", "agile"],
    ["inputs/example_password.xlsx", "agile"],
    ["inputs/ecma376standard_password.docx", "standard"],
    ["inputs/rc4cryptoapi_password.doc", "rc4"],
    ["inputs/rc4cryptoapi_password.xls", "rc4"],
    ["inputs/rc4cryptoapi_password.ppt", "rc4"],
    ["inputs/xor_password_123456789012345.xls", "rc4"],
    ["inputs/plain.doc", null],
    ["inputs/plain.xls", null],
    ["inputs/plain.ppt", null],
    ["outputs/example.docx", null],
  ])("%s → %s", (file, expected) => {
    expect(detectOfficeEncryption(read(file))).toBe(expected);
  });

  it("returns null for bytes that are no Office file at all", () => {
    expect(detectOfficeEncryption(new Uint8Array(Buffer.from("hello")))).toBeNull();
    expect(detectOfficeEncryption(read("inputs/example_password.docx").subarray(0, 700))).toBeNull();
  });
});

describe("decryptOoxml", () => {
  it.each([
    ["inputs/example_password.docx", "outputs/example.docx"],
    ["inputs/example_password.xlsx", "outputs/example.xlsx"],
    ["inputs/ecma376standard_password.docx", "outputs/ecma376standard_password_plain.docx"],
  ])("decrypts %s to the bytes of %s", (input, twin) => {
    expect(Buffer.from(decryptOoxml(read(input), PASSWORD)).equals(Buffer.from(read(twin)))).toBe(true);
  });

  it.each(["inputs/example_password.docx", "inputs/ecma376standard_password.docx"])("rejects a wrong password for %s", (input) => {
    const error = thrownBy(() => decryptOoxml(read(input), "password1234_"));
    expect(isChunkpadError(error, "PARSE_WRONG_PASSWORD")).toBe(true);
    expect((error as Error).message).toMatch(/password given does not open/);
  });

  it("refuses a file that is not encrypted OOXML", () => {
    expect(isChunkpadError(thrownBy(() => decryptOoxml(read("inputs/rc4cryptoapi_password.doc"), PASSWORD)), "PARSE_MALFORMED")).toBe(true);
    expect(isChunkpadError(thrownBy(() => decryptOoxml(read("outputs/example.docx"), PASSWORD)), "PARSE_MALFORMED")).toBe(true);
  });

  it("refuses a hostile spin count instead of hashing for hours", () => {
    const container = readOle(read("inputs/example_password.docx"));
    if (!container) throw new Error("fixture unreadable");
    const entry = container.FileIndex.find((candidate) => candidate.name === "EncryptionInfo");
    if (!entry) throw new Error("fixture has no EncryptionInfo");
    const info = Buffer.from(entry.content as Uint8Array).subarray(0, entry.size);
    const hostile = Buffer.concat([info.subarray(0, 8), Buffer.from(info.subarray(8).toString("utf8").replace('spinCount="100000"', 'spinCount="4000000000"'))]);
    const data = writeOle(container, new Map([["EncryptionInfo", new Uint8Array(hostile)]]));
    expect(isChunkpadError(thrownBy(() => decryptOoxml(data, PASSWORD)), "PARSE_MALFORMED")).toBe(true);
  });

  it("reports a truncated encrypted package as damaged, not as a crash", () => {
    const container = readOle(read("inputs/ecma376standard_password.docx"));
    if (!container) throw new Error("fixture unreadable");
    const data = writeOle(container, new Map([["EncryptedPackage", new Uint8Array([0xff, 0xff, 0, 0, 0, 0, 0, 0, 1, 2, 3])]]));
    expect(isChunkpadError(thrownBy(() => decryptOoxml(data, PASSWORD)), "PARSE_MALFORMED")).toBe(true);
  });
});

describe("withOfficeDecryption", () => {
  it("asks for a password without calling the wrapped parser", async () => {
    const inner = recordingParser("parsed");
    const error = await parseWith(withOfficeDecryption(inner), read("inputs/example_password.docx")).catch((caught: unknown) => caught);
    expect(isChunkpadError(error, "PARSE_ENCRYPTED")).toBe(true);
    expect((error as Error).message).toBe("encrypted: password required");
    expect(inner.inputs).toHaveLength(0);
  });

  it("hands the decrypted package to a real .docx reader", async () => {
    const document = await parseWith(withOfficeDecryption(mammothParser), read("inputs/example_password.docx"), PASSWORD);
    expect(document.blocks).toEqual([{ kind: "paragraph", text: "Lorem ipsum" }]);
    const standard = await parseWith(withOfficeDecryption(mammothParser), read("inputs/ecma376standard_password.docx"), PASSWORD);
    expect(standard.blocks).toEqual([{ kind: "paragraph", text: "lorem ipsum" }]);
  });

  it("passes unencrypted files through untouched and keeps the parser's name", async () => {
    const inner = recordingParser("parsed");
    const wrapped = withOfficeDecryption(inner);
    const plain = read("outputs/example.docx");
    await parseWith(wrapped, plain, PASSWORD);
    expect(inner.inputs[0]?.data).toBe(plain);
    expect(wrapped.name).toBe("docx");
    expect(wrapped.extensions).toEqual([".docx"]);
  });

  it("explains an encrypted Office 97-2003 file under a new-format name", async () => {
    const error = await parseWith(withOfficeDecryption(recordingParser("parsed")), read("inputs/rc4cryptoapi_password.doc"), PASSWORD).catch((caught: unknown) => caught);
    expect(isChunkpadError(error, "PARSE_MALFORMED")).toBe(true);
    expect((error as Error).message).toMatch(/Office 97-2003/);
  });
});

describe("legacy RC4 key derivation", () => {
  it("matches msoffcrypto-tool's published key for block 0", () => {
    const salt = Uint8Array.from([0xe8, 0x77, 0x2c, 0x1d, 0x91, 0xc5, 0x6a, 0x37, 0x96, 0x47, 0x61, 0xb2, 0x80, 0x18, 0x32, 0x17]);
    const expected = [0x20, 0xbf, 0x32, 0xdd, 0xf5, 0x40, 0x85, 0x8c, 0x51, 0x37, 0x44, 0xaf, 0x0f, 0x24, 0xe0, 0x3c];
    expect([...legacyRc4Keys("password1", salt)(0)]).toEqual(expected);
  });
});
