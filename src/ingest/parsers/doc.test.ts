import * as fs from "node:fs";
import * as path from "node:path";
import cfb from "cfb";
import { describe, expect, it } from "vitest";
import { recordingParser } from "../../../test/helpers/parse.js";
import { rejectionOf } from "../../../test/helpers/rejection.js";
import { isChunkpadError } from "../../core/errors.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument, type Parser } from "../../core/types.js";
import { readOle, readStream, writeOle } from "../office-crypto/ole.js";
import { legacyRc4Keys, rc4Stream } from "../office-crypto/rc4.js";
import { createDocParser, sniffWordFormat } from "./doc.js";

const docParser = createDocParser();

const CRYPTO = path.resolve("../shared/corpus/msoffcrypto-tool");
const PASSWORD = "Password1234_";

function read(relative: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(path.join(CRYPTO, relative)));
}

function parse(data: Uint8Array, options: { password?: string; parser?: Parser } = {}): Promise<ParsedDocument> {
  return (options.parser ?? docParser).parse({ path: "/documents/report.doc", data, password: options.password, limits: DEFAULT_PARSE_LIMITS });
}

function parseError(data: Uint8Array, options: { password?: string; parser?: Parser } = {}): Promise<unknown> {
  return rejectionOf(parse(data, options));
}

/** Salt, verifier and hash for password "password1", from msoffcrypto-tool's rc4.py doctests. */
const LEGACY_SALT = Uint8Array.from([0xe8, 0x77, 0x2c, 0x1d, 0x91, 0xc5, 0x6a, 0x37, 0x96, 0x47, 0x61, 0xb2, 0x80, 0x18, 0x32, 0x17]);
const LEGACY_VERIFIER = Uint8Array.from([0xc9, 0xe9, 0x97, 0xd4, 0x54, 0x97, 0x3d, 0x31, 0x0b, 0xb1, 0xba, 0x70, 0x14, 0x26, 0x83, 0x7e]);
const LEGACY_VERIFIER_HASH = Uint8Array.from([0xb1, 0xde, 0x17, 0x8f, 0x07, 0xe9, 0x89, 0xc4, 0x4d, 0xae, 0x5e, 0x4c, 0xf9, 0x6a, 0xc4, 0x07]);

/** The decrypted corpus document, encrypted again with Office 97/2000 RC4 (encryption header 1.1). */
function legacyEncryptedDoc(): Uint8Array {
  const container = readOle(read("outputs/rc4cryptoapi_password_plain.doc"));
  if (!container) throw new Error("fixture unreadable");
  const wordDocument = readStream(container, "WordDocument");
  const table = readStream(container, "1Table");
  if (!wordDocument || !table) throw new Error("fixture streams missing");
  const header = new Uint8Array(52);
  header.set([1, 0, 1, 0]);
  header.set(LEGACY_SALT, 4);
  header.set(LEGACY_VERIFIER, 20);
  header.set(LEGACY_VERIFIER_HASH, 36);
  const keys = legacyRc4Keys("password1", LEGACY_SALT);

  const plainTable = Uint8Array.from(table);
  plainTable.set(header);
  const encryptedTable = rc4Stream(keys, plainTable);
  encryptedTable.set(header);

  const plainWordDocument = Uint8Array.from(wordDocument);
  const fib = new DataView(plainWordDocument.buffer);
  fib.setUint16(0x0a, fib.getUint16(0x0a, true) | 0x0100, true);
  fib.setUint32(0x0e, header.length, true);
  const encryptedWordDocument = rc4Stream(keys, plainWordDocument);
  encryptedWordDocument.set(plainWordDocument.subarray(0, 0x44));
  return writeOle(container, new Map([["WordDocument", encryptedWordDocument], ["1Table", encryptedTable]]));
}

function oleWith(streams: Record<string, Uint8Array>): Uint8Array {
  const container = cfb.utils.cfb_new();
  for (const [name, content] of Object.entries(streams)) cfb.utils.cfb_add(container, `/${name}`, Buffer.from(content));
  return new Uint8Array(cfb.write(container, { type: "buffer" }) as Buffer);
}

describe("docParser on Word 97-2003 files", () => {
  it("reads the body text of a .doc", async () => {
    const document = await parse(read("outputs/rc4cryptoapi_password_plain.doc"));
    expect(document.blocks).toEqual([{ kind: "paragraph", text: "lorem ipsum" }]);
  });

  it("reports a .doc with no text as empty", async () => {
    expect(isChunkpadError(await parseError(read("inputs/plain.doc")), "PARSE_EMPTY")).toBe(true);
  });

  it("leaves the file's path out of its messages (the report already names the file)", async () => {
    const messages = [
      await parseError(read("inputs/plain.doc")),
      await parseError(new Uint8Array([0x00, 0x01, 0x02, 0x03, 0x7f, 0x45, 0x4c, 0x46, 0x00, 0x00])),
    ].map((error) => (error as Error).message);
    for (const message of messages) expect(message).not.toContain("/documents/report.doc");
  });

  it("asks for a password for an RC4 CryptoAPI encrypted .doc", async () => {
    const error = await parseError(read("inputs/rc4cryptoapi_password.doc"));
    expect(isChunkpadError(error, "PARSE_ENCRYPTED")).toBe(true);
    expect((error as Error).message).toBe("encrypted: password required");
  });

  it("decrypts an RC4 CryptoAPI .doc with the right password to the same text as its decrypted twin", async () => {
    const decrypted = await parse(read("inputs/rc4cryptoapi_password.doc"), { password: PASSWORD });
    const twin = await parse(read("outputs/rc4cryptoapi_password_plain.doc"));
    expect(decrypted.blocks).toEqual(twin.blocks);
  });

  it("says so when the password is wrong", async () => {
    const error = await parseError(read("inputs/rc4cryptoapi_password.doc"), { password: "not-the-password" });
    expect(isChunkpadError(error, "PARSE_WRONG_PASSWORD")).toBe(true);
  });

  it("decrypts Office 97/2000 RC4 (header 1.1) documents", async () => {
    const encrypted = legacyEncryptedDoc();
    expect(isChunkpadError(await parseError(encrypted), "PARSE_ENCRYPTED")).toBe(true);
    expect(isChunkpadError(await parseError(encrypted, { password: "password2" }), "PARSE_WRONG_PASSWORD")).toBe(true);
    expect((await parse(encrypted, { password: "password1" })).blocks).toEqual([{ kind: "paragraph", text: "lorem ipsum" }]);
  });

  it("reports a damaged .doc as malformed", async () => {
    const whole = read("outputs/rc4cryptoapi_password_plain.doc");
    for (const cut of [600, whole.length / 2]) {
      const error = await parseError(whole.subarray(0, cut));
      expect(isChunkpadError(error, "PARSE_MALFORMED"), String(error)).toBe(true);
    }
  });

  it("tells apart other Office files and Word 95 documents", async () => {
    const workbook = await parseError(read("inputs/plain.xls"));
    expect(isChunkpadError(workbook, "PARSE_MALFORMED")).toBe(true);
    expect((workbook as Error).message).toMatch(/not a Word document/);
    const word95 = new Uint8Array(512);
    word95.set([0xdc, 0xa5]);
    const old = await parseError(oleWith({ WordDocument: word95 }));
    expect(isChunkpadError(old, "PARSE_UNSUPPORTED")).toBe(true);
    expect((old as Error).message).toMatch(/Word 95/);
  });
});

describe("docParser on files that are not what their .doc name says", () => {
  it("reads an RTF file named .doc as RTF", async () => {
    const document = await parse(new Uint8Array(Buffer.from(String.raw`{\rtf1\ansi caf\'e9 au lait\par}`, "latin1")));
    expect(document.blocks).toEqual([{ kind: "paragraph", text: "café au lait" }]);
    expect(document.warnings[0]).toMatch(/really an RTF file/);
  });

  it("hands a .docx named .doc to the docx parser, or says to rename it", async () => {
    const zip = new Uint8Array(fs.readFileSync(path.join(CRYPTO, "outputs/example.docx")));
    const refused = await parseError(zip);
    expect(isChunkpadError(refused, "PARSE_MALFORMED")).toBe(true);
    expect((refused as Error).message).toMatch(/rename it to \.docx/);

    const docx = recordingParser("from the docx parser");
    const document = await parse(zip, { parser: createDocParser({ docxParser: docx }) });
    expect(document.blocks[0]?.text).toBe("from the docx parser");
    expect(docx.inputs[0]?.data).toBe(zip);
  });

  it("decrypts an encrypted .docx named .doc before handing it on", async () => {
    const docx = recordingParser("from the docx parser");
    const parser = createDocParser({ docxParser: docx });
    const encrypted = read("inputs/example_password.docx");
    expect(isChunkpadError(await parseError(encrypted, { parser }), "PARSE_ENCRYPTED")).toBe(true);
    await parse(encrypted, { parser, password: PASSWORD });
    expect(Buffer.from(docx.inputs[0]?.data ?? []).equals(fs.readFileSync(path.join(CRYPTO, "outputs/example.docx")))).toBe(true);
  });

  it("names web pages and unknown bytes for what they are", async () => {
    const html = new Uint8Array(Buffer.from("<html xmlns:w=\"urn:schemas-microsoft-com:office:word\"><body>Hi</body></html>"));
    expect(sniffWordFormat(html)).toBe("html");
    expect(((await parseError(html)) as Error).message).toMatch(/rename it to \.html/);
    const junk = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00]);
    expect(sniffWordFormat(junk)).toBe("unknown");
    expect(isChunkpadError(await parseError(junk), "PARSE_MALFORMED")).toBe(true);
    // A .dot is often a Graphviz graph, not a Word template: text is read as text.
    const graph = new Uint8Array(Buffer.from("digraph g { heron -> river; }\n"));
    expect(sniffWordFormat(graph)).toBe("text");
    expect((await parse(graph)).blocks).toEqual([{ kind: "paragraph", text: "digraph g { heron -> river; }" }]);
  });
});
