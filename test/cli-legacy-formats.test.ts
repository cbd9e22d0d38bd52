import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, SHARED, writeFile } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { buildEml, buildFlatOpenDocument, buildMsg, buildWordml, mailFixture } from "./helpers/documents.js";

interface Report {
  processed: Array<{ path: string; format: string; chunks: number }>;
  skipped: Array<{ relativePath: string; reason: string }>;
  failed: Array<{ path: string; code: string; message: string }>;
}

interface SearchReport {
  results: Array<{ relativePath: string; section?: string; slide?: number; sheet?: string; chunk: { content: string; slide?: number; sheet?: string } }>;
}

const CRYPTO = path.join(SHARED, "corpus/msoffcrypto-tool");

/** `chunkpad add` on a folder of the formats people still keep, then keyword search into them. */
describe("chunkpad add: legacy Office, mail, flat OpenDocument and text by content", () => {
  const home = makeTempDir("home");
  const folder = makeTempDir("docs");
  let report: Report;

  beforeAll(async () => {
    fs.copyFileSync(path.join(CRYPTO, "inputs/plain.xls"), path.join(folder, "plain.xls"));
    fs.copyFileSync(path.join(CRYPTO, "inputs/plain.ppt"), path.join(folder, "plain.ppt"));
    fs.copyFileSync(path.join(CRYPTO, "inputs/rc4cryptoapi_password.xls"), path.join(folder, "locked.xls"));
    const mail = mailFixture({
      subject: "Hangar budget",
      body: "The zeppelin hangar needs a new roof.\r\n",
      attachments: [{ name: "estimate.txt", contentType: "text/plain", data: Buffer.from("Roof estimate: the quokka contractor quotes 12,000.\n") }],
    });
    writeFile(folder, "mail/budget.eml", buildEml(mail));
    writeFile(folder, "mail/budget.msg", buildMsg({ ...mail, subject: "Hangar budget (Outlook)", attachments: [{ name: "plan.txt", contentType: "text/plain", data: Buffer.from("The wombat crew starts on Monday.\n") }] }));
    writeFile(folder, "guide.fodt", buildFlatOpenDocument("text", "Guide", '<text:h text:outline-level="1">Herons</text:h><text:p>The grey heron waits by the marsh.</text:p>'));
    writeFile(folder, "guide-2003.doc", buildWordml([{ style: "Heading1", text: "Egrets" }, { text: "The little egret hunts in shallow water." }]));
    writeFile(folder, "graph.dot", "digraph marsh {\n  heron -> bittern;\n}\n");
    writeFile(folder, "settings.conf", "# the capybara setting\nenabled = yes\n");
    writeFile(folder, "blob.xyz", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]));

    const result = await runCliInProcess(["add", folder, "--json"], { home });
    // Exit code 4: a file failed (the encrypted workbook), the rest was processed.
    expect(result.code, result.stderr).toBe(4);
    report = json<Report>(result);
  });

  it("processes each format, classifies the encrypted workbook and skips the binary", () => {
    const formats = Object.fromEntries(report.processed.map((file) => [file.path, file.format]));
    expect(formats).toEqual({
      "graph.dot": "doc",
      "guide-2003.doc": "doc",
      "guide.fodt": "odt",
      "mail/budget.eml": "eml",
      "mail/budget.msg": "msg",
      "plain.ppt": "ppt",
      "plain.xls": "xls",
      "settings.conf": "text",
    });
    expect(report.failed.map((failure) => [failure.path, failure.code])).toEqual([["locked.xls", "PARSE_ENCRYPTED"]]);
    expect(report.skipped.map((skip) => [skip.relativePath, skip.reason])).toEqual([["blob.xyz", "unsupported file type .xyz"]]);
  });

  it("finds words from mail attachments, slides, sheets and sniffed text files by keyword search", async () => {
    const search = async (query: string) => json<SearchReport>(await runCliInProcess(["search", query, "--json"], { home })).results;
    const [quokka] = await search("quokka");
    expect(quokka?.relativePath).toBe("mail/budget.eml");
    expect(quokka?.chunk.content).toMatch(/Attachment: estimate\.txt\s+Roof estimate: the quokka contractor/);
    expect((await search("wombat"))[0]?.relativePath).toBe("mail/budget.msg");
    expect((await search("Lovelace")).map((result) => result.relativePath).sort()).toEqual(["mail/budget.eml", "mail/budget.msg"]);
    expect((await search("lorem ipsum")).map((result) => result.relativePath).sort()).toEqual(["plain.ppt", "plain.xls"]);
    expect((await search("capybara"))[0]?.relativePath).toBe("settings.conf");
    expect((await search("bittern"))[0]?.relativePath).toBe("graph.dot");
    expect((await search("egret"))[0]?.relativePath).toBe("guide-2003.doc");
    expect((await search("marsh heron"))[0]?.relativePath).toBe("guide.fodt");
  });

  it("keeps slide numbers and sheet names in the chunk files", () => {
    expect(fs.readFileSync(path.join(folder, "_chunks", "plain.ppt.md"), "utf8")).toMatch(/slide=1/);
    expect(fs.readFileSync(path.join(folder, "_chunks", "plain.xls.md"), "utf8")).toMatch(/sheet="Sheet1"/);
  });
});
