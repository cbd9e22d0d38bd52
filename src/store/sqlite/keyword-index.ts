import type { SqliteDatabase } from "./database.js";
import type { KeywordTerm } from "../../core/keyword-query.js";
import { compareTerms, createFtsTokenizer, createFtsVocabulary, readVarints } from "./fts5-reading.js";
import { createBackgroundReader } from "./background-reader.js";
import { B, forEachRow, idfOf, K1, rankAll, rankAny, TopRows, type Phrase, type Postings } from "./keyword-rank.js";
import { PostingsBuilder } from "./postings-builder.js";

/**
 * The keyword index held in memory, for processes that search many times (the server, the MCP
 * server): every word's chunks with their weighted counts, read from FTS5's own index (a word
 * when a search first needs it, the rest in the background) and kept current from `keyword_log`
 * (migration 5). A query adds up bm25 phrase by phrase, as FTS5's bm25 does (same formula, same
 * statistics, same order of additions), without FTS5's per-query passes over every matching row
 * (idf counts, position lists, document sizes): the scores are FTS5's, to rounding in the last
 * bit. SQLite stays the truth: nothing is written to disk, and a process that falls too far
 * behind the log starts again. Decision 031.
 */
export interface MemoryKeywordIndex {
  /**
   * The best `limit` chunk ids for these words, all of them ("all") or any ("any"), each word a
   * phrase of its own (a word given twice counts twice), with FTS5's bm25 (lower is better). Null
   * when a word is not a single token of the index (FTS5 must read it as a phrase).
   */
  search(terms: readonly KeywordTerm[], match: "all" | "any", limit: number, keep: (id: number) => boolean): Array<{ id: number; bm25: number }> | null;
  /** How many chunks hold this word (null: several tokens, a phrase to FTS5). */
  rowsHolding(word: string): number | null;
  /**
   * Reads more words' lists, for about `budgetMs` (every remaining one with Infinity); false once
   * every word is read. Words a search needs are read when it needs them in any case.
   */
  warm(budgetMs: number): boolean;
  /** Ready once every word's list is in memory; words read so far. */
  status(): { ready: boolean; wordsRead: number };
  /** Resolves when every word's list is in memory (or the index is closed). */
  whenReady(): Promise<void>;
  /** Builds made (tests, benchmarks). */
  builds(): number;
  close(): void;
}

export interface MemoryKeywordIndexOptions {
  db: SqliteDatabase;
  /** FTS5 table (external content, `title` and `content` columns) and its bm25 column weights. */
  table: string;
  weights: { title: number; content: number };
  /** Read every word's list in the background, a slice per turn of the event loop (default true). */
  background?: boolean;
  /** How long one background slice may hold the event loop (tests: 0, one word a slice). */
  sliceMs?: number;
}

/** How long one background slice may hold the event loop (a request arriving meanwhile waits for it). */
const WARM_SLICE_MS = 5;

/** Changed chunks kept beside the main lists before they are folded in (a pass over every list). */
const FOLD_AFTER = 2_000;

export function createMemoryKeywordIndex({ db, table, weights, background = true, sliceMs = WARM_SLICE_MS }: MemoryKeywordIndexOptions): MemoryKeywordIndex {
  const tokenizer = createFtsTokenizer(db, table, weights);
  const vocabulary = createFtsVocabulary(db, table, weights);
  const allSizes = db.prepare<[], [number, Uint8Array]>(`SELECT id, sz FROM ${table}_docsize`).raw();
  const sizesOf = db.prepare<[string], [number, Uint8Array]>(`SELECT id, sz FROM ${table}_docsize WHERE id IN (SELECT value FROM json_each(?))`).raw();
  const averages = db.prepare<[], Uint8Array>(`SELECT block FROM ${table}_data WHERE id = 1`).pluck();
  const logEnd = db.prepare<[], number>("SELECT seq FROM sqlite_sequence WHERE name = 'keyword_log'").pluck();
  const logFrom = db.prepare<[number], [number, number]>("SELECT seq, chunk_id FROM keyword_log WHERE seq > ? ORDER BY seq").raw();
  const texts = db.prepare<[string], [number, string, string]>(
    "SELECT id, search_text(title), search_text(content) FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
  ).raw();

  let built = false;
  let builds = 0;
  let seen = 0;
  let rowCount = 0;
  let averageLength = 1;
  /**
   * Words' lists as read from FTS5 (when a search first needed them, or in the background) and
   * kept since; their entries for rows marked dead are stale (the rows changed since).
   */
  let main = new Map<string, Postings>();
  /** Every word up to here (in SQLite's order) is read: a word not in `main` had no rows then. */
  let warmedThrough: string | null = null;
  let warmComplete = false;
  /** Words read, in order, once all are (for prefixes); before that, each prefix's words as FTS5 listed them. */
  let sortedTerms: string[] | null = null;
  let prefixWords = new Map<string, string[]>();
  /** Changed chunks as they are now: their words and weighted counts. */
  const changed = new Map<number, Map<string, number>>();
  let changedLists = new Map<string, Postings>();
  let dead = new Uint8Array(0);
  let deadCount = 0;
  /** Each row's tokens (title and content): whole numbers, so 4 bytes a row, not 8 (decision 078). */
  let lengths = new Uint32Array(0);
  /**
   * Per-query scratch, indexed by chunk id, zero between uses. A prefix's counts are added up in
   * `score` and its rows listed in `touched` before any ranking uses them (phraseOf, then rankAny):
   * one array each instead of two, 12 MB less at 1M chunks (decision 078).
   */
  let score = new Float64Array(0);
  let hits = new Uint8Array(0);
  let touched = new Int32Array(0);
  /** k1·(1 − b + b·len/avglen) per row, as bm25 computes it, kept while lengths and average stay. */
  let norms = new Float64Array(0);
  let normsValid = false;

  function lengthNorms(): Float64Array {
    if (normsValid && norms.length === lengths.length) return norms;
    norms = new Float64Array(lengths.length);
    for (let id = 0; id < lengths.length; id++) norms[id] = K1 * (1 - B + (B * (lengths[id] as number)) / averageLength);
    normsValid = true;
    return norms;
  }

  function ensureCapacity(id: number): void {
    if (id < lengths.length) return;
    const size = Math.max(id + 1, Math.ceil(lengths.length * 1.5), 1024);
    const grow = <T extends Uint32Array | Uint8Array>(array: T, make: (n: number) => T): T => {
      const next = make(size);
      next.set(array as never);
      return next;
    };
    lengths = grow(lengths, (n) => new Uint32Array(n));
    dead = grow(dead, (n) => new Uint8Array(n));
    score = new Float64Array(size);
    hits = new Uint8Array(size);
    touched = new Int32Array(size);
  }

  function readStatistics(): void {
    normsValid = false;
    const record = averages.get();
    const values = record ? readVarints(record) : [];
    rowCount = values[0] ?? 0;
    const total = values.slice(1).reduce((all, value) => all + value, 0);
    averageLength = rowCount > 0 ? total / rowCount : 1;
  }

  function setLength(id: number, sizes: Uint8Array): void {
    ensureCapacity(id);
    normsValid = false;
    lengths[id] = readVarints(sizes).reduce((all, value) => all + value, 0);
  }

  /** Starts again from what the database holds now: statistics and lengths; words are read as needed. */
  function build(): void {
    db.transaction(() => {
      seen = logEnd.get() ?? 0;
      readStatistics();
      lengths = new Uint32Array(0);
      dead = new Uint8Array(0);
      deadCount = 0;
      for (const [id, sizes] of allSizes.iterate()) setLength(id, sizes);
    });
    main = new Map();
    warmedThrough = null;
    warmComplete = false;
    sortedTerms = null;
    prefixWords = new Map();
    changed.clear();
    changedLists = new Map();
    built = true;
    builds += 1;
    scheduleWarm();
  }

  const builder = new PostingsBuilder();
  /** Whether every row holding `word` when its part of the vocabulary was read is in `main`. */
  function covered(word: string): boolean {
    return warmComplete || (warmedThrough !== null && compareTerms(word, warmedThrough) <= 0);
  }

  /** A word's main list, read from FTS5 the first time. */
  function mainList(word: string): Postings | undefined {
    let list = main.get(word);
    if (list === undefined && !covered(word)) {
      list = vocabulary.list(word);
      main.set(word, list);
    }
    return list;
  }

  /** Reads the next words in the background, a slice at a time, until all are read. */
  const reader = createBackgroundReader({ step: (budgetMs) => db.open && warm(budgetMs), sliceMs, enabled: background });
  const scheduleWarm = () => reader.schedule();

  function warm(budgetMs: number): boolean {
    if (!built) build();
    if (warmComplete) return false;
    const started = performance.now();
    // One read transaction a slice: the pages read stay those of one version of the index.
    const more = db.transaction(() => {
      for (const [word, list] of vocabulary.listsAfter(warmedThrough)) {
        if (!main.has(word)) main.set(word, list);
        warmedThrough = word;
        if (performance.now() - started >= budgetMs) return true;
      }
      return false;
    });
    if (more) return true;
    warmComplete = true;
    sortedTerms = null;
    reader.done();
    return false;
  }

  function rebuildChangedLists(): void {
    const builders = new Map<string, Array<[number, number]>>();
    for (const id of [...changed.keys()].sort((a, b) => a - b)) {
      for (const [term, freq] of changed.get(id) as Map<string, number>) {
        const list = builders.get(term) ?? [];
        builders.set(term, list);
        list.push([id, freq]);
      }
    }
    changedLists = new Map(
      [...builders].map(([term, list]) => {
        for (const [id, freq] of list) builder.add(id, freq);
        return [term, builder.take()];
      }),
    );
  }

  /**
   * Merges the changed chunks into the main lists read so far and forgets the dead rows. A word
   * only changed chunks hold joins `main` where the vocabulary is read (it had no rows there);
   * elsewhere it is dropped, and FTS5 gives its whole list when a search needs it.
   */
  function fold(): void {
    const next = new Map<string, Postings>();
    for (const [word, old] of main) next.set(word, builder.merged(old, changedLists.get(word), dead));
    for (const [word, added] of changedLists) if (!main.has(word) && covered(word)) next.set(word, added);
    dead.fill(0);
    deadCount = 0;
    main = next;
    sortedTerms = null;
    prefixWords = new Map();
    changed.clear();
    changedLists = new Map();
  }

  /** Reads what other writes changed since the index last looked; builds again when the log no longer reaches back. */
  function refresh(): void {
    if (!built) return build();
    const end = logEnd.get() ?? 0;
    if (end === seen) return;
    const ids = new Set<number>();
    // Starts again when the log no longer reaches back, or when reading the changes would cost more.
    const startAgain = db.transaction(() => {
      let complete = true;
      let expected = seen + 1;
      for (const [seq, id] of logFrom.iterate(seen)) {
        if (seq !== expected) complete = false;
        expected = seq + 1;
        ids.add(id);
        seen = seq;
      }
      if (!complete || ids.size > Math.max(50_000, rowCount / 2)) return true;
      readStatistics();
      const list = JSON.stringify([...ids]);
      const rows = texts.all(list);
      for (const id of ids) {
        ensureCapacity(id);
        if (dead[id] === 0) {
          dead[id] = 1;
          deadCount += 1;
        }
        changed.delete(id);
        lengths[id] = 0;
        normsValid = false;
      }
      for (const [id, words] of tokenizer.tokenizeRows(rows)) changed.set(id, words);
      for (const [id, sizes] of sizesOf.all(list)) setLength(id, sizes);
      return false;
    });
    if (startAgain) return build();
    rebuildChangedLists();
    if (changed.size > FOLD_AFTER || deadCount > FOLD_AFTER) fold();
  }

  /** A phrase's rows (ascending) and weighted counts: its one list as it is, or several merged. */
  function phraseOf(lists: Array<{ list: Postings; checkDead: boolean }>): Phrase {
    let list: Postings;
    if (lists.length === 1 && !(lists[0] as { checkDead: boolean }).checkDead) list = (lists[0] as { list: Postings }).list;
    else {
      // A prefix adds up its words' counts (in `score`, listing rows in `touched`); rows changed since
      // the build are read from their own lists.
      const phraseFreq = score;
      let rows = 0;
      for (const { list: part, checkDead } of lists) {
        forEachRow(part, (doc, count) => {
          if (checkDead && dead[doc] === 1) return;
          if (phraseFreq[doc] === 0) touched[rows++] = doc;
          phraseFreq[doc] = (phraseFreq[doc] as number) + count;
        });
      }
      for (const doc of touched.slice(0, rows).sort()) {
        builder.add(doc, phraseFreq[doc] as number);
        phraseFreq[doc] = 0;
      }
      list = builder.take();
    }
    return { ...list, idf: idfOf(list.length, rowCount) };
  }

  /** The lists a term reads: its own word, or every word it is a prefix of. */
  function listsOf(term: KeywordTerm, token: string): Array<{ list: Postings; checkDead: boolean }> {
    const lists: Array<{ list: Postings; checkDead: boolean }> = [];
    const words = term.prefix ? prefixed(token) : [token];
    for (const word of words) {
      const old = mainList(word);
      if (old !== undefined && old.length > 0) lists.push({ list: old, checkDead: deadCount > 0 });
      const fresh = changedLists.get(word);
      if (fresh !== undefined) lists.push({ list: fresh, checkDead: false });
    }
    return lists;
  }

  /** The words starting with `token`: from the words read once all are, else as FTS5 lists them (read with their lists). */
  function prefixed(token: string): string[] {
    const words = new Set<string>();
    if (warmComplete) {
      sortedTerms ??= [...main.keys()].sort();
      let low = 0;
      let high = sortedTerms.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if ((sortedTerms[middle] as string) < token) low = middle + 1;
        else high = middle;
      }
      for (let index = low; index < sortedTerms.length && (sortedTerms[index] as string).startsWith(token); index++) words.add(sortedTerms[index] as string);
    } else {
      let listed = prefixWords.get(token);
      if (listed === undefined) {
        listed = [];
        for (const [word, instances] of vocabulary.startingWith(token)) {
          if (!main.has(word)) main.set(word, vocabulary.parse(instances));
          listed.push(word);
        }
        prefixWords.set(token, listed);
      }
      // Words that appeared since are in the changed lists until a fold, which lists prefixes again.
      for (const word of listed) words.add(word);
    }
    for (const word of changedLists.keys()) if (word.startsWith(token)) words.add(word);
    return [...words];
  }

  scheduleWarm();
  return {
    search(terms, match, limit, keep) {
      refresh();
      const phrases: Phrase[] = [];
      for (const term of terms) {
        const token = tokenizer.tokenOf(term.word);
        if (token === null) return null;
        phrases.push(phraseOf(listsOf(term, token)));
      }
      const top = new TopRows(limit);
      const norms = lengthNorms();
      if (match === "all") rankAll(phrases, norms, top, keep);
      else rankAny(phrases, norms, { scores: score, seen: hits, rows: touched }, top, keep);
      return top.sorted();
    },
    rowsHolding(word) {
      refresh();
      const token = tokenizer.tokenOf(word);
      if (token === null) return null;
      let rows = changedLists.get(token)?.length ?? 0;
      const old = mainList(token);
      if (old !== undefined && deadCount === 0) rows += old.length;
      else if (old !== undefined) forEachRow(old, (doc) => (rows += dead[doc] === 0 ? 1 : 0));
      return rows;
    },
    warm,
    status: () => ({ ready: built && warmComplete, wordsRead: main.size }),
    whenReady: () => reader.whenDone(built && warmComplete),
    builds: () => builds,
    close() {
      reader.close();
      tokenizer.close();
    },
  };
}
