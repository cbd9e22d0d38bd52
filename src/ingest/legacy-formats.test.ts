import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as XLSX from "@e965/xlsx";
import { beforeAll, describe, expect, it } from "vitest";
import { buildEml, buildFlatOpenDocument, buildMsg, buildWordml, mailFixture } from "../../test/helpers/documents.js";
import { CORPUS_DIR } from "../../test/helpers/parse.js";
import { isChunkpadError } from "../core/errors.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument } from "../core/types.js";
import { parseFile } from "./parse-file.js";
import { formatFor, isTextFile } from "./registry.js";

/**
 * Formats people still keep (issue 11): legacy .xls and .ppt, mail with attachments, flat
 * OpenDocument, Word 2003 XML in a .doc, and text files whose extension no parser claims. Files
 * go through parseFile, so the registry's choice of parser is under test too.
 */
const CRYPTO = path.join(CORPUS_DIR, "msoffcrypto-tool");
const PASSWORD = "Password1234_";

const parse = (filePath: string, password?: string) => parseFile(filePath, { limits: DEFAULT_PARSE_LIMITS, password });
const text = (document: ParsedDocument) => document.blocks.map((block) => block.text).join("\n");

async function failureCode(filePath: string, password?: string): Promise<string> {
  try {
    await parse(filePath, password);
  } catch (error) {
    if (isChunkpadError(error)) return error.code;
    throw error;
  }
  return "parsed";
}

let scratch: string;
function writeScratch(name: string, content: string | Uint8Array): string {
  const target = path.join(scratch, name);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, content);
  return target;
}
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-formats-"));
});

describe("Excel 97-2003 workbooks (.xls)", () => {
  it("reads the corpus workbook into the same sheet heading and table rows as an .xlsx", async () => {
    const xls = await parse(path.join(CRYPTO, "inputs/plain.xls"));
    // The same workbook converted to .xlsx, read by the .xlsx parser.
    const workbook = XLSX.read(fs.readFileSync(path.join(CRYPTO, "inputs/plain.xls")), { type: "buffer" });
    const xlsx = await parse(writeScratch("plain.xlsx", XLSX.write(workbook, { type: "buffer", bookType: "xlsx" }) as Buffer));
    expect(xls.blocks).toEqual([
      { kind: "heading", text: "Sheet1", level: 1, sheet: "Sheet1" },
      { kind: "table", text: "lorem ipsum | 3", sheet: "Sheet1" },
    ]);
    expect(xls.blocks).toEqual(xlsx.blocks);
    expect(xls.pageCount).toBe(1);
  });

  it("reads the decrypted twins of the encrypted workbooks, with their sheet names", async () => {
    expect(text(await parse(path.join(CRYPTO, "outputs/rc4cryptoapi_password_plain.xls")))).toContain("lorem ipsum | 3");
    const xor = await parse(path.join(CRYPTO, "outputs/xor_password_123456789012345_plain.xls"));
    expect(xor.blocks[0]).toEqual({ kind: "heading", text: "420", level: 1, sheet: "420" });
    expect(xor.blocks[1]?.text.split("\n")[0]).toBe(Array(26).fill("1").join(" | "));
  });

  it("classifies RC4 CryptoAPI and XOR encrypted workbooks as encrypted, with or without a password", async () => {
    for (const file of ["inputs/rc4cryptoapi_password.xls", "inputs/xor_password_123456789012345.xls"]) {
      expect(await failureCode(path.join(CRYPTO, file))).toBe("PARSE_ENCRYPTED");
      expect(await failureCode(path.join(CRYPTO, file), PASSWORD)).toBe("PARSE_ENCRYPTED");
    }
  });
});

describe("PowerPoint 97-2003 presentations (.ppt)", () => {
  it("reads the corpus presentations' slide text with slide numbers, the title as the slide's heading", async () => {
    for (const file of ["inputs/plain.ppt", "outputs/rc4cryptoapi_password_plain.ppt"]) {
      const document = await parse(path.join(CRYPTO, file));
      expect(document.blocks).toEqual([{ kind: "heading", text: "Lorem ipsum", level: 1, slide: 1 }]);
      expect(document.pageCount).toBe(1);
      expect(document.title).toBe("Lorem ipsum");
    }
  });

  it("classifies an encrypted presentation as encrypted", async () => {
    expect(await failureCode(path.join(CRYPTO, "inputs/rc4cryptoapi_password.ppt"))).toBe("PARSE_ENCRYPTED");
    expect(await failureCode(path.join(CRYPTO, "inputs/rc4cryptoapi_password.ppt"), PASSWORD)).toBe("PARSE_ENCRYPTED");
  });

  it("reports a .ppt that is not a presentation instead of crashing", async () => {
    expect(await failureCode(writeScratch("not-really.ppt", fs.readFileSync(path.join(CRYPTO, "inputs/plain.xls"))))).toBe("PARSE_MALFORMED");
  });
});

describe("mail (.eml, .msg)", () => {
  const mail = mailFixture({
    subject: "Quarterly zeppelin budget",
    body: "Hello team,\r\n\r\nthe budget for the airship hangar is attached.\r\n",
    attachments: [
      { name: "report.docx", contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", data: fs.readFileSync(path.join(CORPUS_DIR, "officeParser/files/test.docx")) },
      { name: "figures.xls", contentType: "application/vnd.ms-excel", data: fs.readFileSync(path.join(CRYPTO, "inputs/plain.xls")) },
      { name: "photo.bin", contentType: "application/octet-stream", data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) },
    ],
  });
  const docxWords = /officeparser|lorem/i;

  const expectMail = (document: ParsedDocument) => {
    expect(document.title).toBe(mail.subject);
    expect(document.blocks[0]).toEqual({ kind: "heading", text: mail.subject, level: 1 });
    const header = document.blocks[1]?.text ?? "";
    expect(header).toContain(`Subject: ${mail.subject}`);
    expect(header).toContain("From: Ada Lovelace <ada@example.com>");
    expect(header).toMatch(/Date: .*(2024-03-05|05 Mar 2024)/);
    const all = text(document);
    expect(all).toContain("the budget for the airship hangar is attached.");
    // Attachments become sections of their own, read by their own parsers.
    const headings = document.blocks.filter((block) => block.kind === "heading" && block.level === 1).map((block) => block.text);
    expect(headings).toEqual([mail.subject, "Attachment: report.docx", "Attachment: figures.xls"]);
    expect(all).toMatch(docxWords);
    expect(all).toContain("lorem ipsum | 3");
    expect(document.blocks.find((block) => block.text === "Sheet1")).toMatchObject({ kind: "heading", level: 2, sheet: "Sheet1" });
    // Nothing is lost silently: the attachment no parser reads is named in a warning.
    expect(document.warnings).toEqual([expect.stringMatching(/^attachment photo\.bin not read: /)]);
  };

  it("reads an .eml's subject, sender, date, body and each attachment", async () => {
    expectMail(await parse(writeScratch("budget.eml", buildEml(mail))));
  });

  it("reads an Outlook .msg's subject, sender, date, body and each attachment", async () => {
    expectMail(await parse(writeScratch("budget.msg", buildMsg(mail))));
  });

  it("reads a message attached to a message, and an HTML-only body", async () => {
    const inner = buildEml({ ...mail, subject: "Original hangar plans", attachments: [] });
    const outer = buildEml({ ...mail, subject: "Fwd: hangar", attachments: [{ name: "original.eml", contentType: "message/rfc822", data: Buffer.from(inner) }] });
    const forwarded = await parse(writeScratch("forwarded.eml", outer));
    expect(forwarded.blocks.filter((block) => block.kind === "heading").map((block) => block.text)).toEqual(["Fwd: hangar", "Attachment: original.eml", "Original hangar plans"]);

    const html = buildEml({ ...mail, attachments: [] }).replace("Content-Type: text/plain; charset=utf-8", "Content-Type: text/html; charset=utf-8").replace(mail.body, "<html><body><p>The <b>hangar</b> doors open at dawn.</p></body></html>");
    expect(text(await parse(writeScratch("html.eml", html)))).toContain("The hangar doors open at dawn.");
  });

  it("reports a file that is not mail", async () => {
    expect(await failureCode(writeScratch("broken.msg", "not an outlook message"))).toBe("PARSE_MALFORMED");
  });
});

describe("flat OpenDocument (.fodt, .fods, .fodp)", () => {
  it("reads a flat text document with its headings and title", async () => {
    const document = await parse(writeScratch("guide.fodt", buildFlatOpenDocument("text", "Bird guide", '<text:h text:outline-level="1">Herons</text:h><text:p>The grey heron waits by the river.</text:p><text:h text:outline-level="2">Nests</text:h><text:p>Herons nest in colonies.</text:p>')));
    expect(document.title).toBe("Bird guide");
    expect(document.blocks).toEqual([
      { kind: "heading", text: "Herons", level: 1 },
      { kind: "paragraph", text: "The grey heron waits by the river." },
      { kind: "heading", text: "Nests", level: 2 },
      { kind: "paragraph", text: "Herons nest in colonies." },
    ]);
  });

  it("reads a flat spreadsheet as sheet tables", async () => {
    const document = await parse(writeScratch("stock.fods", buildFlatOpenDocument("spreadsheet", "Stock", '<table:table table:name="Pantry"><table:table-row><table:table-cell><text:p>Item</text:p></table:table-cell><table:table-cell><text:p>Count</text:p></table:table-cell></table:table-row><table:table-row><table:table-cell><text:p>Lentils</text:p></table:table-cell><table:table-cell><text:p>12</text:p></table:table-cell></table:table-row></table:table>')));
    expect(document.blocks).toEqual([
      { kind: "heading", text: "Pantry", level: 1, sheet: "Pantry" },
      { kind: "table", text: "Item | Count\nLentils | 12", header: "Item | Count", sheet: "Pantry" },
    ]);
  });

  it("reads a flat presentation with slide numbers", async () => {
    const slide = (title: string, body: string) => `<draw:page><draw:frame presentation:class="title"><draw:text-box><text:p>${title}</text:p></draw:text-box></draw:frame><draw:frame><draw:text-box><text:p>${body}</text:p></draw:text-box></draw:frame></draw:page>`;
    const document = await parse(writeScratch("talk.fodp", buildFlatOpenDocument("presentation", "Talk", slide("Welcome", "Why herons wait") + slide("Method", "Counting nests at dawn"))));
    expect(document.pageCount).toBe(2);
    expect(document.blocks).toEqual([
      { kind: "heading", text: "Welcome", level: 1, slide: 1 },
      { kind: "paragraph", text: "Why herons wait", slide: 1 },
      { kind: "heading", text: "Method", level: 1, slide: 2 },
      { kind: "paragraph", text: "Counting nests at dawn", slide: 2 },
    ]);
  });
});

describe("Word 2003 XML saved as .doc", () => {
  it("reads its paragraphs, headings by style name and title", async () => {
    const document = await parse(writeScratch("guide.doc", buildWordml([
      { style: "Heading1", text: "Herons" },
      { text: "The grey heron waits by the river." },
      { style: "berschrift2", text: "Nests" },
      { text: "Herons nest in colonies." },
    ])));
    expect(document.title).toBe("Field guide");
    expect(document.blocks).toEqual([
      { kind: "heading", text: "Herons", level: 1 },
      { kind: "paragraph", text: "The grey heron waits by the river." },
      { kind: "heading", text: "Nests", level: 2 },
      { kind: "paragraph", text: "Herons nest in colonies." },
    ]);
  });
});

describe("text files by content, not extension", () => {
  const samples: Record<string, string> = {
    "graph.dot": "digraph herons {\n  river -> heron [label=\"waits\"];\n}\n",
    "server.log": "2024-03-05 09:30:00 INFO hangar door opened\n",
    "data.json": '{ "bird": "heron", "habitat": "river" }\n',
    "feed.xml": '<?xml version="1.0"?>\n<birds><bird>heron</bird></birds>\n',
    "notes.conf": "# hangar settings\ndoors = dawn\n",
    "README": "Herons wait by the river.\n",
  };

  it.each(Object.entries(samples))("reads %s as text", async (name, content) => {
    const filePath = writeScratch(`text/${name}`, content);
    expect(await isTextFile(filePath)).toBe(true);
    expect(text(await parse(filePath))).toBe(content.trim());
    expect(formatFor(filePath)).toBe(path.extname(name) === ".dot" ? "doc" : "text");
  });

  it("still refuses a binary with an unknown extension, and a UTF-16 text file is text", async () => {
    const binary = writeScratch("text/picture.xyz", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]));
    expect(await isTextFile(binary)).toBe(false);
    expect(await failureCode(binary)).toBe("PARSE_UNSUPPORTED");
    expect(await isTextFile(path.join(CRYPTO, "inputs/plain.xls"))).toBe(false);
    const utf16 = writeScratch("text/notes.ini", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("heron=river\n", "utf16le")]));
    expect(await isTextFile(utf16)).toBe(true);
    expect(text(await parse(utf16))).toBe("heron=river");
  });
});
