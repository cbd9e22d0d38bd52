import * as fs from "node:fs";
import * as path from "node:path";
import { unzipSync } from "fflate";
import mammoth from "mammoth";
import { describe, expect, it } from "vitest";
import { type ErrorCode, isChunkpadError } from "../core/errors.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument, type Parser } from "../core/types.js";
import { detectOfficeEncryption, withOfficeDecryption } from "./office-crypto.js";
import { createDocParser } from "./parsers/doc.js";
import { rtfParser } from "./parsers/rtf.js";

/**
 * Every RTF and Word 97-2003 file in the shared corpus, and every encrypted Office file, gives
 * text or a classified error: no crash, no hang.
 */
const CORPUS = path.resolve("../shared/corpus");
const docParser = createDocParser();
/** A guard against hangs, not a performance claim: each file gets this long. */
const PER_FILE_TIMEOUT_MS = 30_000;

function corpusFiles(extensions: readonly string[]): string[] {
  const found: string[] = [];
  const pending = [CORPUS];
  for (let directory = pending.pop(); directory !== undefined; directory = pending.pop()) {
    for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (extensions.includes(path.extname(entry.name).toLowerCase())) found.push(path.relative(CORPUS, full));
    }
  }
  return found.sort();
}

/** EDGE_CASES.tsv rows: path → kind and note (the note starts with the password for encrypted files). */
function edgeCases(): Map<string, { kind: string; note: string }> {
  const rows = fs.readFileSync(path.join(CORPUS, "EDGE_CASES.tsv"), "utf8").trim().split("\n").slice(1);
  return new Map(
    rows.map((row) => {
      const [file = "", kind = "", note = ""] = row.split("\t");
      return [file, { kind, note }];
    }),
  );
}

/** Files whose failure is the right answer, with the code a user should see. */
const EXPECTED_FAILURES: ReadonlyMap<string, ErrorCode> = new Map([
  ["pandoc/rtf/image.rtf", "PARSE_EMPTY"], // a picture and nothing else
  ["msoffcrypto-tool/inputs/plain.doc", "PARSE_EMPTY"], // an empty Word document
  ["msoffcrypto-tool/inputs/rc4cryptoapi_password.doc", "PARSE_ENCRYPTED"], // no password given
]);

type Outcome = { text: string } | { code: ErrorCode };

async function outcome(parser: Parser, file: string, password?: string): Promise<Outcome> {
  const data = new Uint8Array(fs.readFileSync(path.join(CORPUS, file)));
  let document: ParsedDocument;
  try {
    document = await parser.parse({ path: path.join(CORPUS, file), data, password, limits: DEFAULT_PARSE_LIMITS });
  } catch (error) {
    if (isChunkpadError(error) && error.code.startsWith("PARSE_")) return { code: error.code };
    throw error;
  }
  return { text: document.blocks.map((block) => block.text).join("\n") };
}

const packageContentTypes: Parser = {
  name: "package",
  extensions: [".docx", ".xlsx"],
  parse(input) {
    const entries = unzipSync(input.data, { filter: (entry) => entry.name === "[Content_Types].xml" });
    const contentTypes = entries["[Content_Types].xml"];
    return Promise.resolve({ blocks: contentTypes ? [{ kind: "code", text: Buffer.from(contentTypes).toString("utf8") }] : [], warnings: [] });
  },
};

const mammothText: Parser = {
  name: "docx",
  extensions: [".docx"],
  async parse(input) {
    const { value } = await mammoth.extractRawText({ buffer: Buffer.from(input.data) });
    return { blocks: [{ kind: "paragraph", text: value.trim() }], warnings: [] };
  },
};

describe("RTF and DOC files in the shared corpus", () => {
  const cases = edgeCases();
  const files = corpusFiles([".rtf", ".doc"]);

  it("finds the corpus", () => {
    expect(files.length).toBeGreaterThanOrEqual(20);
  });

  it.each(files)(
    "%s gives text or a classified error",
    async (file) => {
      const parser = file.endsWith(".rtf") ? rtfParser : docParser;
      const result = await outcome(parser, file);
      const expectedFailure = EXPECTED_FAILURES.get(file);
      if (expectedFailure) expect(result).toEqual({ code: expectedFailure });
      else expect("text" in result && result.text.trim().length > 0, JSON.stringify(result)).toBe(true);

      const edge = cases.get(file);
      if (edge?.kind === "encrypted_needs_password") {
        const password = edge.note.split(" ")[0];
        const decrypted = await outcome(parser, file, password);
        expect(decrypted).toEqual({ text: expect.stringMatching(/\S/) as unknown as string });
      }
    },
    PER_FILE_TIMEOUT_MS,
  );
});

describe("encrypted Office files in the shared corpus", () => {
  const encrypted = [...edgeCases()].filter(([file, edge]) => edge.kind === "encrypted_needs_password" && file.startsWith("msoffcrypto-tool/"));

  it("lists the encrypted Office files", () => {
    expect(encrypted.length).toBeGreaterThanOrEqual(7);
  });

  it.each(encrypted)(
    "%s is recognised as encrypted and opens with its password where Chunkpad reads the format",
    async (file, edge) => {
      const data = new Uint8Array(fs.readFileSync(path.join(CORPUS, file)));
      const password = edge.note.split(" ")[0];
      const extension = path.extname(file);
      const expectedKinds = extension === ".docx" || extension === ".xlsx" ? ["agile", "standard"] : ["rc4"];
      expect(expectedKinds).toContain(detectOfficeEncryption(data));
      if (extension === ".docx" || extension === ".xlsx") {
        const wrapped = withOfficeDecryption(packageContentTypes);
        expect(await outcome(wrapped, file)).toEqual({ code: "PARSE_ENCRYPTED" });
        expect(await outcome(wrapped, file, "wrong password")).toEqual({ code: "PARSE_WRONG_PASSWORD" });
        const contentTypes = await outcome(wrapped, file, password);
        expect(contentTypes).toEqual({ text: expect.stringContaining(extension === ".docx" ? "wordprocessingml.document.main+xml" : "spreadsheetml.sheet.main+xml") as unknown as string });
      }
      if (extension === ".docx") {
        expect(await outcome(withOfficeDecryption(mammothText), file, password)).toEqual({ text: expect.stringMatching(/lorem ipsum/i) as unknown as string });
      }
    },
    PER_FILE_TIMEOUT_MS,
  );
});
