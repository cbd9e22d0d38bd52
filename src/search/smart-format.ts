/**
 * Readers for the SMART format the classic IR test collections (CISI, CRAN, MED, ...) use:
 * records start with `.I <id>`, then fields `.T` title, `.A` author, `.W` text, `.X` refs,
 * `.B`, `.K`, `.C` ..., each running until the next marker line. Pure: callers read the files.
 */

export interface SmartRecord {
  id: string;
  /** Field letter → the text of each occurrence of that field, in order (`.A` may repeat). */
  fields: Map<string, string[]>;
}

export interface SmartDocument {
  id: string;
  title: string;
  authors: string[];
  /** The `.W` text, lines trimmed, line breaks kept. */
  text: string;
}

const MARKER_LINE = /^\.([A-Z])(?:\s+(.*?))?\s*$/;

export function parseSmartRecords(text: string): SmartRecord[] {
  const records: SmartRecord[] = [];
  let current: SmartRecord | undefined;
  let lines: string[] | undefined;

  const closeField = (letter: string | undefined): void => {
    if (!current || !letter || !lines) return;
    const values = current.fields.get(letter) ?? [];
    values.push(lines.join("\n").trim());
    current.fields.set(letter, values);
  };

  let fieldLetter: string | undefined;
  for (const rawLine of text.split(/\r?\n/)) {
    const marker = MARKER_LINE.exec(rawLine);
    if (marker) {
      closeField(fieldLetter);
      const [, letter = "", rest = ""] = marker;
      if (letter === "I") {
        current = { id: rest.trim(), fields: new Map() };
        records.push(current);
        fieldLetter = undefined;
        lines = undefined;
      } else {
        fieldLetter = letter;
        lines = rest === "" ? [] : [rest];
      }
      continue;
    }
    if (lines) lines.push(rawLine.trim());
  }
  closeField(fieldLetter);
  return records;
}

function firstField(record: SmartRecord, letter: string): string {
  return record.fields.get(letter)?.[0] ?? "";
}

export function parseSmartDocuments(text: string): SmartDocument[] {
  return parseSmartRecords(text).map((record) => ({
    id: record.id,
    title: firstField(record, "T").replace(/\s+/g, " "),
    authors: record.fields.get("A") ?? [],
    text: firstField(record, "W"),
  }));
}

/** Query id → query text (`.W`, or `.T` when a query has no `.W`), on one line. */
export function parseSmartQueries(text: string): Map<string, string> {
  const queries = new Map<string, string>();
  for (const record of parseSmartRecords(text)) {
    const body = firstField(record, "W") || firstField(record, "T");
    queries.set(record.id, body.replace(/\s+/g, " ").trim());
  }
  return queries;
}

/**
 * Relevance judgments, one `query-id doc-id ...` pair a line (CISI: `1 28 0 0.000000`).
 * Every listed pair is relevant (grade 1): the trailing columns are unused in these files.
 */
export function parseSmartRelevance(text: string): Map<string, Map<string, number>> {
  const qrels = new Map<string, Map<string, number>>();
  for (const line of text.split(/\r?\n/)) {
    const [queryId, documentId] = line.trim().split(/\s+/);
    if (!queryId || !documentId) continue;
    let judgments = qrels.get(queryId);
    if (judgments === undefined) {
      judgments = new Map();
      qrels.set(queryId, judgments);
    }
    judgments.set(documentId, 1);
  }
  return qrels;
}
