import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chunkDocument } from "../../src/chunking/chunker.js";
import { DEFAULT_CHUNKING, DEFAULT_PARSE_LIMITS } from "../../src/core/types.js";
import { isChunkpadError } from "../../src/core/errors.js";
import { parseFile } from "../../src/ingest/parse-file.js";
import { formatFor } from "../../src/ingest/registry.js";
import { openZip } from "../../src/ingest/zip.js";
import { CORPUS_DIR } from "./parse.js";

/**
 * Word recall of Chunkpad's chunks against an independent extraction of the same file:
 * poppler's pdftotext for PDF, antiword for DOC, unrtf for RTF, catdoc's xls2csv/catppt for
 * XLS/PPT, and, for the zip formats (DOCX, PPTX, XLSX, ODF, EPUB), the text nodes of the
 * document's own XML. Shared by the quality tests and bench/extraction-quality.ts.
 */

export interface QualityResult {
  /** Path relative to the corpus. */
  file: string;
  format: string;
  /** Distinct words in the independent extraction. */
  referenceWords: number;
  /** Chunkpad produced at least one chunk. */
  extracted: boolean;
  /** Share of the reference's distinct words found in Chunkpad's chunks (0 when nothing was extracted). */
  recall: number;
  /** The PARSE_* code when Chunkpad reported the file instead of indexing it. */
  errorCode?: string;
  warnings: string[];
}

/** A document "holds text" when the independent extractor finds at least this many distinct words. */
export const MIN_REFERENCE_WORDS = 2;

/** Normalised words: NFKC, lower case, runs of letters or digits; each CJK character is a word. */
export function wordSet(text: string): Set<string> {
  const spaced = text.normalize("NFKC").toLowerCase().replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu, " $& ");
  return new Set(spaced.match(/[\p{L}\p{N}]+/gu) ?? []);
}

export function recallOf(reference: Set<string>, found: Set<string>): number {
  if (reference.size === 0) return 1;
  let hits = 0;
  for (const word of reference) if (found.has(word)) hits++;
  return hits / reference.size;
}

/**
 * Which parts of a zip format hold its text, and how to read it: "runs" formats (Word,
 * PowerPoint) concatenate the runs of a paragraph; markup formats (ODF, EPUB) drop the tags,
 * with block ends, tabs and line breaks as spaces; spreadsheets take each string cell.
 */
const XML_TEXT: Record<string, { parts: RegExp; read: "runs" | "markup" | "cells" }> = {
  docx: { parts: /^word\/(document|footnotes|endnotes|comments|header\d*|footer\d*)\.xml$|^word\/diagrams\/data\d*\.xml$|^word\/charts\/chart\d*\.xml$/i, read: "runs" },
  pptx: { parts: /^ppt\/slides\/slide\d+\.xml$/i, read: "runs" },
  xlsx: { parts: /^xl\/sharedStrings\.xml$|^xl\/worksheets\/sheet\d+\.xml$/i, read: "cells" },
  odt: { parts: /^content\.xml$/, read: "markup" },
  ods: { parts: /^content\.xml$/, read: "markup" },
  odp: { parts: /^content\.xml$/, read: "markup" },
  epub: { parts: /\.x?html?$/i, read: "markup" },
};

function textOfXml(xml: string, read: "runs" | "markup" | "cells"): string {
  if (read === "cells") return [...xml.matchAll(/<t(?:\s[^>]*)?>([^<]*)<\/t>/g)].map((match) => match[1] ?? "").join(" ");
  if (read === "runs") {
    const pieces: string[] = [];
    for (const match of xml.matchAll(/<\/(?:w|a):p>|<(?:w|a):(?:tab|br)\b[^>]*\/>|<(w:t|a:t|c:v)(?:\s[^>]*)?>([^<]*)<\/\1>/g)) {
      pieces.push(match[1] ? (match[2] ?? "") : "\n");
    }
    return pieces.join("");
  }
  return xml
    .replace(/<text:tracked-changes\b[\s\S]*?<\/text:tracked-changes>/g, " ")
    .replace(/<\/(?:text:p|text:h|p|div|h\d|li|td|th|dt|dd)>|<(?:text:s|text:tab|text:line-break|br)\b[^>]*>/g, " ")
    .replace(/<[^>]+>/g, "");
}

function decodeXmlText(text: string): string {
  return text
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, decimal: string) => String.fromCodePoint(Number.parseInt(decimal, 10)))
    .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");
}

function xmlReference(filePath: string, format: string): string {
  const rule = XML_TEXT[format];
  if (!rule) return "";
  let zip;
  try {
    zip = openZip(new Uint8Array(fs.readFileSync(filePath)), { limits: DEFAULT_PARSE_LIMITS });
  } catch {
    // Encrypted, damaged or a bomb: no reference text, so not a document that holds text.
    return "";
  }
  const texts: string[] = [];
  for (const entry of zip.entries) {
    if (!rule.parts.test(entry.name)) continue;
    let xml: string;
    try {
      xml = new TextDecoder().decode(zip.read(entry.name));
    } catch {
      continue;
    }
    // The content of ODF and EPUB: the body only, without scripts and styles.
    if (format.startsWith("od")) xml = xml.slice(Math.max(0, xml.indexOf("<office:body")));
    if (format === "epub") xml = xml.replace(/<head[\s\S]*?<\/head>|<(script|style)[\s\S]*?<\/\1>/gi, "");
    texts.push(decodeXmlText(textOfXml(xml, rule.read)));
  }
  return texts.join(" ");
}

const SCRATCH_DIRECTORY = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-extractors-"));
process.once("exit", () => fs.rmSync(SCRATCH_DIRECTORY, { recursive: true, force: true }));

function run(command: string, args: string[]): string {
  try {
    // unrtf writes a document's pictures into the working directory: keep them out of the project.
    return execFileSync(command, args, { cwd: SCRATCH_DIRECTORY, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"], timeout: 60_000 });
  } catch (error) {
    const output = (error as { stdout?: string; code?: string }).stdout;
    if ((error as { code?: string }).code === "ENOENT") {
      throw new Error(`${command} is not installed: apt-get install -y poppler-utils antiword catdoc unrtf (.ci/run does this)`);
    }
    return output ?? "";
  }
}

/** The independent extraction of a file, or undefined for a format with none. */
export function referenceText(filePath: string, format: string): string | undefined {
  switch (format) {
    case "pdf":
      return run("pdftotext", ["-q", "-enc", "UTF-8", filePath, "-"]);
    case "doc":
      return run("antiword", ["-w", "0", filePath]) || run("catdoc", ["-d", "utf-8", filePath]);
    case "rtf":
      return run("unrtf", ["--text", "--quiet", filePath]).replace(/^###.*$/gm, "").replace(/^-{10,}$/gm, "");
    case "xls":
      return run("xls2csv", ["-d", "utf-8", filePath]);
    case "ppt":
      return run("catppt", ["-d", "utf-8", filePath]);
    case "docx":
    case "pptx":
    case "xlsx":
    case "odt":
    case "ods":
    case "odp":
    case "epub":
      return xmlReference(filePath, format);
    default:
      return undefined;
  }
}

/** Corpus files of each format Chunkpad reads and an independent extractor covers, sorted. */
export function corpusFilesByFormat(): Map<string, string[]> {
  const byFormat = new Map<string, string[]>();
  const visit = (directory: string): void => {
    for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) visit(full);
      else {
        const format = formatFor(full);
        const extension = path.extname(full).toLowerCase();
        // The extension's own format, where a parser reads several (".doc" may go to "doc").
        const reference = format ? referenceFormat(extension) : undefined;
        if (!reference) continue;
        byFormat.set(reference, [...(byFormat.get(reference) ?? []), path.relative(CORPUS_DIR, full)]);
      }
    }
  };
  visit(CORPUS_DIR);
  for (const files of byFormat.values()) files.sort();
  return byFormat;
}

function referenceFormat(extension: string): string | undefined {
  const formats: Record<string, string> = {
    ".pdf": "pdf", ".doc": "doc", ".rtf": "rtf", ".xls": "xls", ".ppt": "ppt", ".docx": "docx", ".pptx": "pptx",
    ".xlsx": "xlsx", ".odt": "odt", ".ods": "ods", ".odp": "odp", ".epub": "epub",
  };
  return formats[extension];
}

/** Whether the independent extractor finds text in the file (at least MIN_REFERENCE_WORDS words). */
export function holdsText(relativePath: string, format: string): boolean {
  return wordSet(referenceText(path.join(CORPUS_DIR, relativePath), format) ?? "").size >= MIN_REFERENCE_WORDS;
}

/** A deterministic sample of at most count files (by a hash of the path), for a fast test. */
export function sampleFiles(files: readonly string[], count: number): string[] {
  if (files.length <= count) return [...files];
  const key = (file: string): string => createHash("sha1").update(file).digest("hex");
  return [...files].sort((a, b) => key(a).localeCompare(key(b))).slice(0, count).sort();
}

/** Parses and chunks one corpus file as `chunkpad process` does, and scores it against the reference. */
export async function measureFile(relativePath: string, format: string): Promise<QualityResult | undefined> {
  const filePath = path.join(CORPUS_DIR, relativePath);
  const reference = wordSet(referenceText(filePath, format) ?? "");
  if (reference.size < MIN_REFERENCE_WORDS) return undefined;
  const result: QualityResult = { file: relativePath, format, referenceWords: reference.size, extracted: false, recall: 0, warnings: [] };
  try {
    const document = await parseFile(filePath, { limits: DEFAULT_PARSE_LIMITS, signal: AbortSignal.timeout(60_000) });
    const chunks = chunkDocument(document, DEFAULT_CHUNKING);
    result.extracted = chunks.length > 0;
    result.recall = recallOf(reference, wordSet(chunks.map((chunk) => chunk.content).join("\n")));
    result.warnings = document.warnings;
  } catch (error) {
    if (!isChunkpadError(error)) throw error;
    result.errorCode = error.code;
  }
  return result;
}

export interface FormatSummary {
  format: string;
  documents: number;
  extracted: number;
  meanRecall: number;
  medianRecall: number;
}

export function summarize(format: string, results: readonly QualityResult[]): FormatSummary {
  const recalls = results.map((result) => result.recall).sort((a, b) => a - b);
  const middle = Math.floor(recalls.length / 2);
  const median = recalls.length === 0 ? 0 : recalls.length % 2 === 1 ? (recalls[middle] ?? 0) : ((recalls[middle - 1] ?? 0) + (recalls[middle] ?? 0)) / 2;
  return {
    format,
    documents: results.length,
    extracted: results.filter((result) => result.extracted).length,
    meanRecall: recalls.length === 0 ? 0 : recalls.reduce((sum, recall) => sum + recall, 0) / recalls.length,
    medianRecall: median,
  };
}
