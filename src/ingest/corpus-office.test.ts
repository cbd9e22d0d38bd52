import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isChunkpadError, type ErrorCode } from "../core/errors.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument, type Parser } from "../core/types.js";
import { docxParser } from "./parsers/docx.js";
import { epubParser } from "./parsers/epub.js";
import { odpParser } from "./parsers/odp.js";
import { odsParser } from "./parsers/ods.js";
import { odtParser } from "./parsers/odt.js";
import { pptxParser } from "./parsers/pptx.js";
import { xlsxParser } from "./parsers/xlsx.js";
import { nativeWords } from "../../test/helpers/pandoc-native.js";

/**
 * Every zip-based office file of the shared corpus ends as text or as a classified
 * ChunkpadError, within the time limit; where the corpus ships expected text, the text is
 * compared.
 */
const CORPUS = path.resolve("../shared/corpus");
// A guard against a parse that never ends, not a speed test: CI runs three test runs side by side
// (decision 081), and a file that takes 2 s on an idle machine can take eight times that there.
const FILE_TIME_LIMIT_MS = 60_000;

const PARSERS = new Map<string, Parser>([
  [".docx", docxParser], [".docm", docxParser], [".dotx", docxParser], [".zip", docxParser],
  [".odt", odtParser], [".ott", odtParser], [".odp", odpParser], [".pptx", pptxParser], [".pptm", pptxParser],
  [".xlsx", xlsxParser], [".xlsm", xlsxParser], [".ods", odsParser], [".epub", epubParser],
]);

/** Files that are meant to fail, from EDGE_CASES.tsv, and the code each must end with. */
const EDGE_CODES: Record<string, readonly ErrorCode[]> = {
  zip_bomb: ["PARSE_ZIP_BOMB"],
  empty: ["PARSE_EMPTY"],
  malformed: ["PARSE_MALFORMED"],
  wrong_format: ["PARSE_MALFORMED"],
  // OLE-wrapped encrypted OOXML: the registry's decryption wrapper handles it; bare, it is not a zip.
  encrypted_needs_password: ["PARSE_MALFORMED", "PARSE_ENCRYPTED"],
};

/** Corpus files with no text of their own (pictures, formulas, hidden fields): PARSE_EMPTY is right. */
const NO_TEXT = new Set([
  "mammoth.js/external-picture.docx", "mammoth.js/tiny-picture.docx", "mammoth.js/tiny-picture-target-base-relative.docx",
  "pandoc/odt/odt/formula.odt", "pandoc/odt/odt/hiddenTextByVariable.odt", "pandoc/odt/odt/horizontalRule.odt",
  "pandoc/odt/odt/image.odt", "pandoc/odt/odt/imageRelative.odt", "pandoc/odt/odt/variable.odt",
]);

function edgeCases(): Map<string, string> {
  const rows = fs.readFileSync(path.join(CORPUS, "EDGE_CASES.tsv"), "utf8").trim().split("\n").slice(1);
  return new Map(rows.map((row) => row.split("\t")).map(([file, kind]) => [file ?? "", kind ?? ""]));
}

function corpusFiles(): string[] {
  const found: string[] = [];
  const visit = (directory: string): void => {
    for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (PARSERS.has(path.extname(entry.name).toLowerCase())) found.push(path.relative(CORPUS, full));
    }
  };
  visit(CORPUS);
  return found.sort();
}

async function parseCorpusFile(relativePath: string): Promise<ParsedDocument> {
  const parser = PARSERS.get(path.extname(relativePath).toLowerCase());
  if (!parser) throw new Error(`no parser for ${relativePath}`);
  const full = path.join(CORPUS, relativePath);
  return parser.parse({ path: full, data: new Uint8Array(fs.readFileSync(full)), limits: DEFAULT_PARSE_LIMITS });
}

function textOf(document: ParsedDocument): string {
  return normalize(document.blocks.map((block) => block.text).join("\n"));
}

function normalize(text: string): string {
  return text.normalize("NFC").toLowerCase().replace(/[\s\u00a0\u200b]+/g, " ");
}


/** Levels of the non-empty headers in a pandoc tree, in order. */
function nativeHeaderLevels(native: string): number[] {
  return [...native.matchAll(/Header\s+(\d)\s*\(\s*"(?:[^"\\]|\\.)*"\s*,\s*\[[^\]]*\]\s*,\s*\[[^\]]*\]\s*\)\s*\[\s*([^\]\s])/g)].map((match) => Number(match[1]));
}

function shareFound(words: string[], text: string): number {
  if (words.length === 0) return 1;
  return words.filter((word) => text.includes(normalize(word))).length / words.length;
}

describe("office parsers over the shared corpus", () => {
  const edges = edgeCases();
  const files = corpusFiles();

  it("finds the corpus files of every zip-based format", () => {
    const extensions = new Set(files.map((file) => path.extname(file)));
    for (const extension of [".docx", ".odt", ".odp", ".pptx", ".xlsx", ".ods", ".epub"]) expect(extensions).toContain(extension);
    expect(files.length).toBeGreaterThan(200);
  });

  it.each(files)("%s yields text or a classified error", { timeout: FILE_TIME_LIMIT_MS }, async (file) => {
    const kind = edges.get(file);
    const expectedCodes = kind ? EDGE_CODES[kind] : NO_TEXT.has(file) ? (["PARSE_EMPTY"] as const) : undefined;
    const outcome = await parseCorpusFile(file).then(
      (document) => ({ document }),
      (error: unknown) => ({ error }),
    );
    if (expectedCodes) {
      expect("error" in outcome, `${file} (${kind ?? "no text"}) should fail`).toBe(true);
      if ("error" in outcome) {
        expect(isChunkpadError(outcome.error), String(outcome.error)).toBe(true);
        if (isChunkpadError(outcome.error)) {
          expect(expectedCodes).toContain(outcome.error.code);
          expect(outcome.error.message.length).toBeGreaterThan(20);
        }
      }
      return;
    }
    if ("error" in outcome) throw outcome.error;
    expect(textOf(outcome.document).trim().length).toBeGreaterThan(0);
  });
});

describe("office parsers against officeParser's baseline text", () => {
  const cases = [
    ["test.docx", docxParser], ["test.odt", odtParser], ["test.odp", odpParser], ["test.pptx", pptxParser],
    ["test.xlsx", xlsxParser], ["test.ods", odsParser], ["test.epub", epubParser],
  ] as const;

  it.each(cases)("%s has the baseline's words", { timeout: FILE_TIME_LIMIT_MS }, async (name) => {
    const document = await parseCorpusFile(`officeParser/files/${name}`);
    const baseline = fs.readFileSync(path.join(CORPUS, `officeParser/parser/baseline/${name}.txt`), "utf8");
    const words = normalize(baseline).split(" ").filter((word) => word.length > 3);
    expect(words.length).toBeGreaterThan(500);
    // The baseline joins some words (TOC entries and their page numbers) and prints chart data
    // and image alt text; nearly everything else must be there.
    expect(shareFound(words, textOf(document))).toBeGreaterThan(0.95);
  });
});

describe("office parsers against pandoc's expected trees", () => {
  const withNative = (directory: string, extension: string, nativeDirectory = directory): Array<[string, string]> =>
    fs
      .readdirSync(path.join(CORPUS, directory))
      .filter((name) => name.endsWith(extension))
      .map((name): [string, string] => [`${directory}/${name}`, path.join(CORPUS, nativeDirectory, name.replace(extension, ".native"))])
      .filter(([, native]) => fs.existsSync(native));

  const docx = withNative("pandoc/docx", ".docx");
  const odt = withNative("pandoc/odt/odt", ".odt", "pandoc/odt/native");
  const epub = withNative("pandoc/epub", ".epub");
  const pptx = withNative("pandoc/pptx-reader", ".pptx");

  it("has pandoc trees to compare with", () => {
    expect(docx.length).toBeGreaterThan(60);
    expect(odt.length).toBeGreaterThan(15);
    expect(epub.length).toBeGreaterThanOrEqual(3);
  });

  // Decided when the cases are collected, so a case with nothing to compare is a declared skip, not a pass.
  const treeWords = [...docx, ...odt, ...epub, ...pptx].map(([file, nativePath]) => [file, nativeWords(fs.readFileSync(nativePath, "utf8"))] as const);
  const withWords = treeWords.filter(([file, words]) => words.length > 0 && !NO_TEXT.has(file));
  const withoutWords = treeWords.filter(([file, words]) => words.length === 0 || NO_TEXT.has(file)).map(([file]) => file);

  it.skip.each(withoutWords)("%s has most of the tree's words (skipped: the document or pandoc's tree has no body text)", () => undefined);

  it.each(withWords)("%s has most of the tree's words", { timeout: FILE_TIME_LIMIT_MS }, async (file, words) => {
    const document = await parseCorpusFile(file);
    // Pandoc also prints comments, metadata fields and checkbox glyphs that are not body text.
    expect(shareFound(words, textOf(document))).toBeGreaterThan(0.6);
  });

  // Some ODT tests expect markdown rather than a tree: its words and its "#" heading levels.
  // imageIndex.odt's markdown is mostly its generated figure index, which Chunkpad skips on
  // purpose (generated indexes only repeat the document's own text).
  const GENERATED_INDEX_ONLY = new Set(["pandoc/odt/odt/imageIndex.odt"]);
  const odtMarkdown = fs
    .readdirSync(path.join(CORPUS, "pandoc/odt/markdown"))
    .map((name) => [`pandoc/odt/odt/${name.replace(/\.md$/, ".odt")}`, path.join(CORPUS, "pandoc/odt/markdown", name)] as const)
    .filter(([file, markdown]) => fs.existsSync(path.join(CORPUS, file)) && !NO_TEXT.has(file) && !GENERATED_INDEX_ONLY.has(file) && !fs.readFileSync(markdown, "utf8").trimStart().startsWith("<"));

  it.each(odtMarkdown)("%s has the words and headings of its expected markdown", { timeout: FILE_TIME_LIMIT_MS }, async (file, markdownPath) => {
    const markdown = fs.readFileSync(markdownPath, "utf8");
    const words = markdown
      .replace(/!\[[^\]]*\]\([^)]*\)/g, " ")
      .replace(/\]\([^)]*\)/g, " ")
      .replace(/\[\^\d+\]:?|\[@|[#*_~`>$[\](){}\\]/g, " ")
      .split(/\s+/)
      .filter((word) => /\p{L}/u.test(word));
    const document = await parseCorpusFile(file);
    expect(shareFound(words, textOf(document))).toBeGreaterThan(0.9);
    const levels = [...markdown.matchAll(/^(#{1,6})\s/gm)].map((match) => match[1]?.length);
    expect(document.blocks.filter((block) => block.kind === "heading").map((block) => block.level)).toEqual(levels);
  });

  const treeLevels = [...docx, ...odt, ...epub].map(([file, nativePath]) => [file, nativeHeaderLevels(fs.readFileSync(nativePath, "utf8"))] as const);
  const withHeadings = treeLevels.filter(([, levels]) => levels.length > 0);
  const withoutHeadings = treeLevels.filter(([, levels]) => levels.length === 0).map(([file]) => file);

  it.skip.each(withoutHeadings)("%s keeps the tree's headings with their levels (skipped: pandoc's tree has no headings)", () => undefined);

  it.each(withHeadings)("%s keeps the tree's headings with their levels", { timeout: FILE_TIME_LIMIT_MS }, async (file, levels) => {
    const document = await parseCorpusFile(file);
    const found = document.blocks.filter((block) => block.kind === "heading").map((block) => block.level);
    // Every expected level appears among the headings, in order (extra headings, such as a
    // Title paragraph pandoc reads as metadata, may sit between them).
    let position = 0;
    for (const level of found) if (position < levels.length && level === levels[position]) position++;
    expect(position, `headings ${JSON.stringify(found)} should contain ${JSON.stringify(levels)}`).toBe(levels.length);
  });
});
