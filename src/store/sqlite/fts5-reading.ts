import { openSqlite, type SqliteDatabase } from "./driver.js";
import type { Postings } from "./keyword-rank.js";
import { PostingsBuilder } from "./postings-builder.js";
import { createFtsSegmentReader, Fts5FormatError } from "./fts5-segments.js";

/**
 * Reading FTS5 from outside, for the keyword index in memory (keyword-index.ts, decision 031):
 * its order of terms, its varint records, each word's chunks, and its tokenizer, copied into a
 * private database.
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
  const tokenizer = openSqlite(":memory:");
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
        });
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
      });
      return result;
    },
    close: () => tokenizer.close(),
  };
}

export interface FtsVocabulary {
  /** One word's list (empty when no chunk holds it). */
  list(word: string): Postings;
  /** Every word starting with `prefix`, in SQLite's order, with its instances (see `parse`). */
  startingWith(prefix: string): Iterable<[string, string]>;
  /**
   * Every word after `word` (all with null), in SQLite's order, with its list; stop early by
   * breaking. Read from FTS5's pages (fts5-segments.ts); through fts5vocab when their format is not
   * one the page reader knows.
   */
  listsAfter(word: string | null): Iterable<[string, Postings]>;
  /** A word's list from its instances. */
  parse(instances: string | null): Postings;
}

/**
 * Each word's chunks as FTS5's index holds them, through `fts5vocab(…, instance)`: a word's
 * instances in (doc, column, offset) order as one string, doc ids with title ones negated (a
 * title hit counts `weights.title`), parsed into a list of chunks and weighted counts.
 */
export function createFtsVocabulary(db: SqliteDatabase, table: string, weights: { title: number; content: number }): FtsVocabulary {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.keyword_index_vocab USING fts5vocab(main, ${table}, instance)`);
  const instances = "group_concat(CASE col WHEN 'title' THEN -doc ELSE doc END)";
  const one = db.prepare<[string], string | null>(`SELECT ${instances} FROM temp.keyword_index_vocab WHERE term = ?`).pluck();
  const range = db.prepare<[string, string], [string, string]>(`SELECT term, ${instances} FROM temp.keyword_index_vocab WHERE term >= ? AND term < ? GROUP BY term`).raw();
  const after = db.prepare<[string], [string, string]>(`SELECT term, ${instances} FROM temp.keyword_index_vocab WHERE term > ? GROUP BY term`).raw();
  const builder = new PostingsBuilder();
  let pages = createFtsSegmentReader(db, table, weights);
  const parse = (list: string | null): Postings => {
    const text = list ?? "";
    let value = 0;
    let negative = false;
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code === 45) negative = true;
      else if (code !== 44) value = value * 10 + (code - 48);
      if (code === 44 || index === text.length - 1) {
        builder.add(value, negative ? weights.title : weights.content);
        value = 0;
        negative = false;
      }
    }
    return builder.take();
  };
  return {
    list: (word) => parse(one.get(word) ?? null),
    // U+10FFFF is the largest character: every word with the prefix sorts before prefix + it.
    startingWith: (prefix) => range.iterate(prefix, `${prefix}\u{10FFFF}`),
    *listsAfter(word) {
      if (pages !== null) {
        let last = word;
        try {
          for (const entry of pages.listsAfter(word)) {
            last = entry[0];
            yield entry;
          }
          return;
        } catch (error) {
          if (!(error instanceof Fts5FormatError)) throw error;
          // A format this reader does not know: fts5vocab from the last word given, from now on.
          pages = null;
          word = last;
        }
      }
      for (const [term, instances] of after.iterate(word ?? "")) yield [term, parse(instances)];
    },
    parse,
  };
}
