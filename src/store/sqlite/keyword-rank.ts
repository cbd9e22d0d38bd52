/**
 * Ranking for the keyword index in memory (keyword-index.ts): bm25 as FTS5 computes it
 * (fts5_aux.c), over words' lists of rows. Decision 031.
 */

/** FTS5's bm25 constants (fts5_aux.c). */
export const K1 = 1.2;
export const B = 0.75;
export const MIN_IDF = 1e-6;
/** Per-query arrays indexed by chunk id, zero between queries. */
export interface RankScratch {
  scores: Float64Array;
  seen: Uint16Array;
  rows: Int32Array;
}

/** FTS5's idf of a phrase `rows` of `rowCount` rows hold, floored. */
export function idfOf(rows: number, rowCount: number): number {
  const raw = Math.log((rowCount - rows + 0.5) / (rows + 0.5));
  return raw <= 0 ? MIN_IDF : raw;
}

/** A word's rows (ascending) and weighted counts (title hits count `weights.title`). */
export interface Postings {
  docs: Int32Array;
  freqs: Float32Array;
}

/** A phrase of a query: its rows (ascending), weighted counts, and idf. */
export interface Phrase {
  docs: Int32Array;
  freqs: Float32Array | Float64Array;
  idf: number;
}

/** The first index from `from` whose row is at least `doc` (rows ascending): gallop, then halve. */
function seek(docs: Int32Array, from: number, doc: number): number {
  if (from >= docs.length || (docs[from] as number) >= doc) return from;
  let step = 1;
  let low = from;
  let high = from + 1;
  while (high < docs.length && (docs[high] as number) < doc) {
    low = high;
    step *= 2;
    high = from + step;
  }
  if (high > docs.length) high = docs.length;
  while (low + 1 < high) {
    const middle = (low + high) >> 1;
    if ((docs[middle] as number) < doc) low = middle;
    else high = middle;
  }
  return high;
}

/** The best `limit` rows by score (ties: the lower id), in a heap with the weakest on top. */
export class TopRows {
  private readonly scores: number[] = [];
  private readonly ids: number[] = [];
  constructor(private readonly limit: number) {}

  private weaker(a: number, b: number): boolean {
    const left = this.scores[a] as number;
    const right = this.scores[b] as number;
    return left < right || (left === right && (this.ids[a] as number) > (this.ids[b] as number));
  }

  /** Whether a row with this score would enter (before asking whether it may). */
  admits(value: number, id: number): boolean {
    if (this.ids.length < this.limit) return true;
    const weakest = this.scores[0] as number;
    return value > weakest || (value === weakest && id < (this.ids[0] as number));
  }

  add(value: number, id: number): void {
    if (this.ids.length < this.limit) {
      this.scores.push(value);
      this.ids.push(id);
      for (let at = this.ids.length - 1; at > 0; ) {
        const parent = (at - 1) >> 1;
        if (!this.weaker(at, parent)) break;
        this.swap(at, parent);
        at = parent;
      }
      return;
    }
    this.scores[0] = value;
    this.ids[0] = id;
    for (let at = 0; ; ) {
      const left = 2 * at + 1;
      let weakest = at;
      if (left < this.ids.length && this.weaker(left, weakest)) weakest = left;
      if (left + 1 < this.ids.length && this.weaker(left + 1, weakest)) weakest = left + 1;
      if (weakest === at) return;
      this.swap(at, weakest);
      at = weakest;
    }
  }

  private swap(a: number, b: number): void {
    [this.scores[a], this.scores[b]] = [this.scores[b] as number, this.scores[a] as number];
    [this.ids[a], this.ids[b]] = [this.ids[b] as number, this.ids[a] as number];
  }

  /** Best first, with FTS5's sign (bm25 lower is better). */
  sorted(): Array<{ id: number; bm25: number }> {
    return this.ids.map((id, index) => ({ id, bm25: -1.0 * (this.scores[index] as number) })).sort((a, b) => a.bm25 - b.bm25 || a.id - b.id);
  }
}

/** One growable list of (doc, freq) pairs. */
export class PostingsBuilder {
  docs = new Int32Array(1024);
  freqs = new Float32Array(1024);
  length = 0;
  add(doc: number, freq: number): void {
    if (this.length > 0 && this.docs[this.length - 1] === doc) {
      this.freqs[this.length - 1] = (this.freqs[this.length - 1] as number) + freq;
      return;
    }
    if (this.length === this.docs.length) {
      const docs = new Int32Array(this.length * 2);
      docs.set(this.docs);
      this.docs = docs;
      const freqs = new Float32Array(this.length * 2);
      freqs.set(this.freqs);
      this.freqs = freqs;
    }
    this.docs[this.length] = doc;
    this.freqs[this.length++] = freq;
  }
  take(): Postings {
    const taken = { docs: this.docs.slice(0, this.length), freqs: this.freqs.slice(0, this.length) };
    this.length = 0;
    return taken;
  }
}

/** Any phrase: added up phrase by phrase, in the query's order, into one score per row. */
export function rankAny(phrases: readonly Phrase[], norms: Float64Array, scratch: RankScratch, top: TopRows, keep: (id: number) => boolean): void {
  const { scores, seen, rows } = scratch;
  let count = 0;
  for (const { docs, freqs, idf } of phrases) {
    for (let index = 0; index < docs.length; index++) {
      const doc = docs[index] as number;
      const freq = freqs[index] as number;
      if (seen[doc] === 0) {
        seen[doc] = 1;
        rows[count++] = doc;
      }
      scores[doc] = (scores[doc] as number) + idf * ((freq * (K1 + 1.0)) / (freq + (norms[doc] as number)));
    }
  }
  for (let index = 0; index < count; index++) {
    const doc = rows[index] as number;
    const value = scores[doc] as number;
    scores[doc] = 0;
    seen[doc] = 0;
    if (top.admits(value, doc) && keep(doc)) top.add(value, doc);
  }
}

/**
 * Every phrase: the rows of the rarest, looked up in the others' lists (a galloping search
 * through rows in order), each phrase's part kept apart and added up in the query's order.
 */
export function rankAll(phrases: readonly Phrase[], norms: Float64Array, top: TopRows, keep: (id: number) => boolean): void {
  const order = phrases.map((_, index) => index).sort((a, b) => (phrases[a] as Phrase).docs.length - (phrases[b] as Phrase).docs.length);
  const rarest = phrases[order[0] as number] as Phrase;
  const candidates = rarest.docs;
  const width = phrases.length;
  const parts = new Float64Array(candidates.length * width);
  const alive = new Uint8Array(candidates.length).fill(1);
  for (const which of order) {
    const { docs, freqs, idf } = phrases[which] as Phrase;
    let at = 0;
    for (let index = 0; index < candidates.length; index++) {
      if (alive[index] === 0) continue;
      const doc = candidates[index] as number;
      if (docs !== candidates) {
        at = seek(docs, at, doc);
        if (at >= docs.length || docs[at] !== doc) {
          alive[index] = 0;
          continue;
        }
      } else at = index;
      const freq = freqs[at] as number;
      parts[index * width + which] = idf * ((freq * (K1 + 1.0)) / (freq + (norms[doc] as number)));
    }
  }
  for (let index = 0; index < candidates.length; index++) {
    if (alive[index] === 0) continue;
    let value = 0;
    for (let which = 0; which < width; which++) value += parts[index * width + which] as number;
    const doc = candidates[index] as number;
    if (top.admits(value, doc) && keep(doc)) top.add(value, doc);
  }
}
