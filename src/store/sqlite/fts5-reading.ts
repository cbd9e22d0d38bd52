import Database from "better-sqlite3";
import type { SqliteDatabase } from "./database.js";

/**
 * Reading FTS5 from outside, for the keyword index in memory (keyword-index.ts, decision 031):
 * its order of terms, its varint records, and its tokenizer, copied into a private database.
 */

/** SQLite's order of terms (their UTF-8 bytes), which is not JavaScript's (UTF-16 units). */
export const compareTerms = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** SQLite's varints (FTS5's averages and document-size records): big-endian 7-bit groups, the ninth byte whole. */
export function readVarints(blob: Uint8Array): number[] {
  const values: number[] = [];
  let offset = 0;
  while (offset < blob.length) {
    let value = 0;
    for (let index = 0; index < 9 && offset < blob.length; index++) {
      const byte = blob[offset++] as number;
      if (index === 8) {
        value = value * 256 + byte;
        break;
      }
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) break;
    }
    values.push(value);
  }
  return values;
}

/** The tokenizer an FTS5 table was made with, from its CREATE statement. */
function tokenizerOf(db: SqliteDatabase, table: string): string {
  const sql = db.prepare<[string], string>("SELECT sql FROM sqlite_master WHERE name = ?").pluck().get(table) ?? "";
  return /tokenize\s*=\s*('(?:[^']|'')*')/i.exec(sql)?.[1] ?? "'unicode61'";
}

export interface FtsTokenizer {
  /** A query word as the index holds it (stemmed, folded); null unless it is exactly one token. */
  tokenOf(word: string): string | null;
  /** Each row's words with their weighted counts (title and content as the table weighs them). */
  tokenizeRows(rows: Array<[number, string | null, string | null]>): Map<number, Map<string, number>>;
  close(): void;
}

/**
 * The same FTS5 tokenizer as `table`'s, in an in-memory database of its own: tokenizing a query
 * or a changed chunk writes nothing to the store's connection.
 */
export function createFtsTokenizer(db: SqliteDatabase, table: string, weights: { title: number; content: number }): FtsTokenizer {
  const tokenizer = new Database(":memory:");
  tokenizer.exec(`
    CREATE VIRTUAL TABLE words USING fts5(title, content, tokenize = ${tokenizerOf(db, table)});
    CREATE VIRTUAL TABLE words_vocab USING fts5vocab(words, instance);
  `);
  const insert = tokenizer.prepare<[number, string, string]>("INSERT INTO words (rowid, title, content) VALUES (?, ?, ?)");
  const tokenized = tokenizer.prepare<[], [string, number, string]>("SELECT term, doc, col FROM words_vocab ORDER BY doc, col, offset").raw();
  const clear = tokenizer.prepare("DELETE FROM words");
  const tokens = new Map<string, string[]>();
  return {
    tokenOf(word) {
      let found = tokens.get(word);
      if (found === undefined) {
        found = tokenizer.transaction(() => {
          insert.run(1, "", word);
          const list = tokenized.all().map(([term]) => term);
          clear.run();
          return list;
        })();
        if (tokens.size > 10_000) tokens.clear();
        tokens.set(word, found);
      }
      return found.length === 1 ? (found[0] as string) : null;
    },
    tokenizeRows(rows) {
      const result = new Map<number, Map<string, number>>();
      tokenizer.transaction(() => {
        for (const [id, title, content] of rows) insert.run(id, title ?? "", content ?? "");
        for (const [term, doc, column] of tokenized.iterate()) {
          const words = result.get(doc) ?? new Map<string, number>();
          result.set(doc, words);
          words.set(term, (words.get(term) ?? 0) + (column === "title" ? weights.title : weights.content));
        }
        clear.run();
      })();
      return result;
    },
    close: () => tokenizer.close(),
  };
}
