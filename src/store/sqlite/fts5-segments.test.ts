import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openSqlite, type SqliteDatabase } from "./driver.js";
import { createFtsVocabulary } from "./fts5-reading.js";
import { createFtsSegmentReader } from "./fts5-segments.js";
import { forEachRow, type Postings } from "./keyword-rank.js";

/**
 * Words' lists read from FTS5's pages (decision 078) must be exactly those FTS5 itself gives
 * through fts5vocab: every word, every row, every weighted count, from any word on, whatever
 * the writes left behind — doclists and position lists running over several pages, several
 * segments holding the same word, rows updated and deleted with FTS5's secure-delete on (entries
 * removed from the pages) or off (delete markers in newer segments), chunk ids far apart.
 */
const WEIGHTS = { title: 2, content: 1 };
const TABLE = "chunks_fts";
const WORDS = ["library", "libraries", "catalog", "information", "retrieval", "indexing", "a", "of", "the", "citation", "journals", "vocabulary", "ü", "naïve", "系统", "antidisestablishmentarianism"];

const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 12 }).map((words) => words.join(" "));
/** Some chunks repeat a word a few hundred times: its position list runs over several pages. */
const content = fc.oneof(text, text, fc.tuple(fc.constantFrom(...WORDS), fc.integer({ min: 20, max: 300 })).map(([word, times]) => `${word} `.repeat(times)));
/** Ids close together and far apart (multi-byte rowid deltas, ids past 16 bits). */
const ids = fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 3_000_000 }));
const operation = fc.oneof(
  fc.record({ kind: fc.constant("put" as const), id: ids, title: text, content }),
  fc.record({ kind: fc.constant("delete" as const), id: ids }),
);
/** Writes in transactions (each ends a segment), with the settings that decide what the pages hold. */
const histories = fc.record({
  batches: fc.array(fc.array(operation, { minLength: 1, maxLength: 25 }), { minLength: 1, maxLength: 12 }),
  pageSize: fc.constantFrom(32, 64, 200, 4050),
  automerge: fc.constantFrom(0, 2, 4),
  secureDelete: fc.boolean(),
});

function indexOf(history: { batches: Array<Array<{ kind: "put" | "delete"; id: number; title?: string; content?: string }>>; pageSize: number; automerge: number; secureDelete: boolean }): SqliteDatabase {
  const db = openSqlite(":memory:");
  db.exec(`CREATE VIRTUAL TABLE ${TABLE} USING fts5(title, content, tokenize = 'porter unicode61 remove_diacritics 2')`);
  const setting = db.prepare<[string, number]>(`INSERT INTO ${TABLE} (${TABLE}, rank) VALUES (?, ?)`);
  setting.run("pgsz", history.pageSize);
  setting.run("automerge", history.automerge);
  setting.run("secure-delete", history.secureDelete ? 1 : 0);
  const remove = db.prepare<[number]>(`DELETE FROM ${TABLE} WHERE rowid = ?`);
  const insert = db.prepare<[number, string, string]>(`INSERT INTO ${TABLE} (rowid, title, content) VALUES (?, ?, ?)`);
  for (const batch of history.batches) {
    db.transaction(() => {
      for (const step of batch) {
        remove.run(step.id);
        if (step.kind === "put") insert.run(step.id, step.title ?? "", step.content ?? "");
      }
    });
  }
  return db;
}

const plain = (list: Postings): Array<[number, number]> => {
  const rows: Array<[number, number]> = [];
  forEachRow(list, (row, count) => rows.push([row, count]));
  return rows;
};

/** Every word after `word` as fts5vocab gives it. */
function throughVocabulary(db: SqliteDatabase, word: string | null): Array<[string, Array<[number, number]>]> {
  const vocabulary = createFtsVocabulary(db, TABLE, WEIGHTS);
  const after = db.prepare<[string], [string, string]>(`SELECT term, group_concat(CASE col WHEN 'title' THEN -doc ELSE doc END) FROM temp.keyword_index_vocab WHERE term > ? GROUP BY term`).raw();
  return after.all(word ?? "").map(([term, instances]) => [term, plain(vocabulary.parse(instances))]);
}

function throughPages(db: SqliteDatabase, word: string | null): Array<[string, Array<[number, number]>]> {
  const reader = createFtsSegmentReader(db, TABLE, WEIGHTS);
  if (reader === null) throw new Error("the page reader refused a table it should read");
  return [...reader.listsAfter(word)].map(([term, list]) => [term, plain(list)]);
}

describe("words' lists read from FTS5's pages", () => {
  it("are fts5vocab's, word for word and row for row, after any history of writes", () => {
    fc.assert(
      fc.property(histories, fc.option(fc.constantFrom(...WORDS, "b", "lib", "zzz"), { nil: null }), (history, from) => {
        const db = indexOf(history);
        try {
          // From the start, and from a word on (the background reading resumes after the last word it read).
          expect(throughPages(db, null)).toEqual(throughVocabulary(db, null));
          const token = from === null ? null : (throughVocabulary(db, null).find(([term]) => term >= from)?.[0] ?? from);
          expect(throughPages(db, token)).toEqual(throughVocabulary(db, token));
        } finally {
          db.close();
        }
      }),
      { numRuns: 150 },
    );
  });

  it("reads a word that fills many pages, in many segments, with rows deleted between them", () => {
    const db = indexOf({
      pageSize: 64,
      automerge: 0,
      secureDelete: false,
      batches: Array.from({ length: 8 }, (_, batch) =>
        Array.from({ length: 300 }, (_, index) => (index % 7 === batch ? { kind: "delete" as const, id: index * 5 + 1 } : { kind: "put" as const, id: index * 5 + 1, title: batch % 2 ? "library" : "", content: `library catalog ${"the ".repeat(index % 40)}` })),
      ),
    });
    try {
      const pages = throughPages(db, null);
      expect(pages.map(([term]) => term)).toEqual(["catalog", "librari", "the"]);
      expect(pages).toEqual(throughVocabulary(db, null));
    } finally {
      db.close();
    }
  });

  it("keeps the buffers grown for a long list between reads, and gives them back once every word is read", () => {
    const db = indexOf({ pageSize: 4050, automerge: 0, secureDelete: false, batches: [Array.from({ length: 5000 }, (_, index) => ({ kind: "put" as const, id: index + 1, title: "", content: index % 2 ? "library catalog" : "library" }))] });
    try {
      const reader = createFtsSegmentReader(db, TABLE, WEIGHTS);
      if (reader === null) throw new Error("the page reader refused a table it should read");
      const small = reader.heldBytes();
      // A slice that stops after the long list: the next slice reuses what it grew.
      for (const [term] of reader.listsAfter("catalog")) if (term === "librari") break;
      expect(reader.heldBytes()).toBeGreaterThanOrEqual(5000 * 12);
      // The last slice reads to the end of the vocabulary.
      expect([...reader.listsAfter("catalog")].map(([term, list]) => [term, list.length])).toEqual([["librari", 5000]]);
      expect(reader.heldBytes()).toBe(small);
      expect(small).toBeLessThan(16_384);
    } finally {
      db.close();
    }
  });

  it("leaves a table of another shape to fts5vocab", () => {
    const db = openSqlite(":memory:");
    try {
      db.exec(`CREATE VIRTUAL TABLE ${TABLE} USING fts5(title, content, detail = column)`);
      db.prepare(`INSERT INTO ${TABLE} (rowid, title, content) VALUES (1, 'library', 'library catalog')`).run();
      expect(createFtsSegmentReader(db, TABLE, WEIGHTS)).toBeNull();
      const lists = [...createFtsVocabulary(db, TABLE, WEIGHTS).listsAfter(null)].map(([term, list]) => [term, plain(list)]);
      expect(lists).toEqual([
        ["catalog", [[1, 1]]],
        ["library", [[1, 3]]],
      ]);
    } finally {
      db.close();
    }
  });
});
