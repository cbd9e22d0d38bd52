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
  seen: Uint8Array;
  rows: Int32Array;
}

/** FTS5's idf of a phrase `rows` of `rowCount` rows hold, floored. */
export function idfOf(rows: number, rowCount: number): number {
  const raw = Math.log((rowCount - rows + 0.5) / (rows + 0.5));
  return raw <= 0 ? MIN_IDF : raw;
}

/**
 * A word's rows (ascending) and weighted counts (title hits count `weights.title`), packed: a
 * row id is its high bits (`row >>> 16`, one per segment) and its low 16 bits (`lows`), so a
 * row takes 2 bytes, and a count 1 where every count is a whole number up to 255 (the common
 * case: title hits count 2, others 1), else 4. Eight bytes a row before (Int32 + Float32): at 1M
 * chunks the lists were 560 MB of serve's 985 (issue 22). Decision 070.
 */
export interface Postings {
  length: number;
  lows: Uint16Array;
  /**
   * Segments in order, two numbers each: the rows' high bits and the segment's first index; then
   * a last pair [-1, length], so segment `s` ends where `s + 1` begins.
   */
  segments: Int32Array;
  freqs: Uint8Array | Float32Array;
}

/** A phrase of a query: its rows and weighted counts (a prefix's words added up), and idf. */
export interface Phrase extends Postings {
  idf: number;
}

/** How many segments a list has. */
export const segmentCount = (list: Postings): number => (list.segments.length >> 1) - 1;

/** The row at `index`. */
export function rowAt(list: Postings, index: number): number {
  const { segments } = list;
  let low = 0;
  let high = segmentCount(list) - 1;
  // The last segment whose first index is at most `index`.
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((segments[2 * middle + 1] as number) <= index) low = middle;
    else high = middle - 1;
  }
  return (((segments[2 * low] as number) << 16) | (list.lows[index] as number)) >>> 0;
}

/** The first index in [from, end) whose value is at least `value` (values ascending), or `end`: gallop, then halve. */
function gallop(values: Uint16Array, from: number, end: number, value: number): number {
  if (from >= end || (values[from] as number) >= value) return from;
  let step = 1;
  let below = from;
  let above = from + 1;
  while (above < end && (values[above] as number) < value) {
    below = above;
    step *= 2;
    above = from + step;
  }
  if (above > end) above = end;
  while (below + 1 < above) {
    const middle = (below + above) >> 1;
    if ((values[middle] as number) < value) below = middle;
    else above = middle;
  }
  return above;
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

/** One growable list of (row, count) pairs, packed when taken. */
export class PostingsBuilder {
  private rows = new Int32Array(1024);
  private freqs = new Float64Array(1024);
  private length = 0;

  /** Rows come in ascending order; the same row again adds to its count. */
  add(row: number, freq: number): void {
    if (this.length > 0 && this.rows[this.length - 1] === row) {
      this.freqs[this.length - 1] = (this.freqs[this.length - 1] as number) + freq;
      return;
    }
    if (this.length === this.rows.length) {
      const rows = new Int32Array(this.length * 2);
      rows.set(this.rows);
      this.rows = rows;
      const freqs = new Float64Array(this.length * 2);
      freqs.set(this.freqs);
      this.freqs = freqs;
    }
    this.rows[this.length] = row;
    this.freqs[this.length++] = freq;
  }

  take(): Postings {
    const { rows, length } = this;
    const lows = new Uint16Array(length);
    const segments: number[] = [];
    let bytes = true;
    for (let index = 0; index < length; index++) {
      const row = rows[index] as number;
      const high = row >>> 16;
      if (segments.length === 0 || segments[segments.length - 2] !== high) segments.push(high, index);
      lows[index] = row & 0xffff;
      const freq = this.freqs[index] as number;
      if (bytes && !(Number.isInteger(freq) && freq >= 0 && freq <= 255)) bytes = false;
    }
    segments.push(-1, length);
    const freqs = bytes ? Uint8Array.from(this.freqs.subarray(0, length)) : Float32Array.from(this.freqs.subarray(0, length));
    this.length = 0;
    return { length, lows, segments: Int32Array.from(segments), freqs };
  }
}

/** Calls `each(row, index)` for every row of the list, in order. */
export function forEachRow(list: Postings, each: (row: number, index: number) => void): void {
  const { segments, lows } = list;
  for (let segment = 0, count = segmentCount(list); segment < count; segment++) {
    const base = (segments[2 * segment] as number) << 16;
    for (let index = segments[2 * segment + 1] as number, end = segments[2 * segment + 3] as number; index < end; index++) each((base | (lows[index] as number)) >>> 0, index);
  }
}

/** Any phrase: added up phrase by phrase, in the query's order, into one score per row. */
export function rankAny(phrases: readonly Phrase[], norms: Float64Array, scratch: RankScratch, top: TopRows, keep: (id: number) => boolean): void {
  const { scores, seen, rows } = scratch;
  let count = 0;
  for (const phrase of phrases) {
    const { segments, lows, freqs, idf } = phrase;
    // forEachRow's loop, written out: this is the hottest loop of an any-word search.
    for (let segment = 0, segmentTotal = segmentCount(phrase); segment < segmentTotal; segment++) {
      const base = (segments[2 * segment] as number) << 16;
      for (let index = segments[2 * segment + 1] as number, end = segments[2 * segment + 3] as number; index < end; index++) {
        const doc = base | (lows[index] as number);
        const freq = freqs[index] as number;
        if (seen[doc] === 0) {
          seen[doc] = 1;
          rows[count++] = doc;
        }
        scores[doc] = (scores[doc] as number) + idf * ((freq * (K1 + 1.0)) / (freq + (norms[doc] as number)));
      }
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
  const order = phrases.map((_, index) => index).sort((a, b) => (phrases[a] as Phrase).length - (phrases[b] as Phrase).length);
  const rarest = phrases[order[0] as number] as Phrase;
  const candidates = new Int32Array(rarest.length);
  forEachRow(rarest, (row, index) => (candidates[index] = row));
  const width = phrases.length;
  const parts = new Float64Array(candidates.length * width);
  const alive = new Uint8Array(candidates.length).fill(1);
  for (const which of order) {
    const phrase = phrases[which] as Phrase;
    const { segments, lows, freqs, idf } = phrase;
    const count = segmentCount(phrase);
    // Candidates ascend: the segment and the index only move forward.
    let segment = 0;
    let at = 0;
    for (let index = 0; index < candidates.length; index++) {
      if (alive[index] === 0) continue;
      const doc = candidates[index] as number;
      if (phrase !== rarest) {
        const high = doc >>> 16;
        while (segment < count && (segments[2 * segment] as number) < high) segment++;
        if (segment === count || segments[2 * segment] !== high) {
          alive[index] = 0;
          continue;
        }
        const end = segments[2 * segment + 3] as number;
        at = gallop(lows, Math.max(at, segments[2 * segment + 1] as number), end, doc & 0xffff);
        if (at === end || lows[at] !== (doc & 0xffff)) {
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
