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
 * A word's rows (ascending) and weighted counts (title hits count `weights.title`), packed
 * (decisions 070 and 085). Two forms of rows:
 * - sparse: a row id is its high bits (`row >>> 16`, one per segment) and its low 16 bits
 *   (`lows`), 2 bytes a row;
 * - dense (`bits` set): a bit per chunk id from `bitsFrom · 32`, with the rows counted per
 *   block of RANK_BLOCK_WORDS words (`ranks`) and inside it before each word (`offsets`) to find
 *   a row's index with one popcount; about 0.17 bytes a chunk id, so it is taken where that is
 *   less than 2 bytes a row (a word more than about 1 chunk in 12 holds).
 * Counts: 4 bits where every count is a whole number up to 15 (`countBits` 4, two a byte, the
 * even index in the low half), a byte where up to 255, else a Float32.
 * Eight bytes a row before decision 070 (Int32 + Float32): at 1M chunks the lists were 560 MB of
 * serve's 985 (issue 22).
 */
export interface Postings {
  length: number;
  /** Sparse form: each row's low 16 bits (empty when dense). */
  lows: Uint16Array;
  /**
   * Sparse form: segments in order, two numbers each: the rows' high bits and the segment's first
   * index; then a last pair [-1, length], so segment `s` ends where `s + 1` begins. Dense: [-1, length].
   */
  segments: Int32Array;
  /** Dense form: bit `id & 31` of word `(id >>> 5) - bitsFrom` is set when the list holds `id`; null when sparse. */
  bits: Uint32Array | null;
  bitsFrom: number;
  /** Dense form: the rows before each block of RANK_BLOCK_WORDS words of `bits`. */
  ranks: Uint32Array | null;
  /** Dense form: the rows before each word inside its block (at most 7 · 32, so a byte). */
  offsets: Uint8Array | null;
  freqs: Uint8Array | Float32Array;
  countBits: 4 | 8 | 32;
}

/** A phrase of a query: its rows and weighted counts (a prefix's words added up), and idf. */
export interface Phrase extends Postings {
  idf: number;
}

/** Words of a dense list's bitmap per entry of its rank directory (4 bytes per 256 chunk ids). */
const RANK_BLOCK_SHIFT = 3;
export const RANK_BLOCK_WORDS = 1 << RANK_BLOCK_SHIFT;

/** How many segments a sparse list has. */
export const segmentCount = (list: Postings): number => (list.segments.length >> 1) - 1;

/** The count at `index`. */
export function countAt(list: Postings, index: number): number {
  return list.countBits === 4 ? ((list.freqs[index >>> 1] as number) >>> ((index & 1) << 2)) & 15 : (list.freqs[index] as number);
}

/** Set bits of a 32-bit word. */
export function bitCount(word: number): number {
  let value = word - ((word >>> 1) & 0x55555555);
  value = (value & 0x33333333) + ((value >>> 2) & 0x33333333);
  return (Math.imul((value + (value >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
}

/** A dense list's index of `id` (its count's place), or -1 when it does not hold it: one popcount. */
function denseIndexOf(list: Postings, bits: Uint32Array, id: number): number {
  const word = (id >>> 5) - list.bitsFrom;
  if (word < 0 || word >= bits.length) return -1;
  const value = bits[word] as number;
  const bit = id & 31;
  if (((value >>> bit) & 1) === 0) return -1;
  const before = ((list.ranks as Uint32Array)[word >>> RANK_BLOCK_SHIFT] as number) + ((list.offsets as Uint8Array)[word] as number);
  return before + bitCount(value & ((1 << bit) - 1));
}

/** The row at `index` (tests: a dense list is walked to it). */
export function rowAt(list: Postings, index: number): number {
  if (list.bits !== null) {
    let found = -1;
    forEachRow(list, (row, _count, at) => {
      if (at === index) found = row;
    });
    return found;
  }
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

/** Calls `each(row, count, index)` for every row of the list, in order. */
export function forEachRow(list: Postings, each: (row: number, count: number, index: number) => void): void {
  const { segments, lows, bits, bitsFrom } = list;
  if (bits !== null) {
    for (let word = 0, index = 0; word < bits.length; word++) {
      for (let value = bits[word] as number; value !== 0; value &= value - 1) {
        each((bitsFrom + word) * 32 + (31 - Math.clz32(value & -value)), countAt(list, index), index);
        index++;
      }
    }
    return;
  }
  for (let segment = 0, count = segmentCount(list); segment < count; segment++) {
    const base = (segments[2 * segment] as number) << 16;
    for (let index = segments[2 * segment + 1] as number, end = segments[2 * segment + 3] as number; index < end; index++) each((base | (lows[index] as number)) >>> 0, countAt(list, index), index);
  }
}

/** Any phrase: added up phrase by phrase, in the query's order, into one score per row. */
export function rankAny(phrases: readonly Phrase[], norms: Float64Array, scratch: RankScratch, top: TopRows, keep: (id: number) => boolean): void {
  const { scores, seen, rows } = scratch;
  let count = 0;
  for (const phrase of phrases) {
    const { segments, lows, bits, bitsFrom, idf, freqs } = phrase;
    const nibbles = phrase.countBits === 4;
    // forEachRow's loops, written out: these are the hottest loops of an any-word search.
    if (bits !== null) {
      for (let word = 0, index = 0; word < bits.length; word++) {
        const base = (bitsFrom + word) * 32;
        for (let value = bits[word] as number; value !== 0; value &= value - 1) {
          const doc = base + (31 - Math.clz32(value & -value));
          const freq = nibbles ? ((freqs[index >>> 1] as number) >>> ((index & 1) << 2)) & 15 : (freqs[index] as number);
          index++;
          if (seen[doc] === 0) {
            seen[doc] = 1;
            rows[count++] = doc;
          }
          scores[doc] = (scores[doc] as number) + idf * ((freq * (K1 + 1.0)) / (freq + (norms[doc] as number)));
        }
      }
      continue;
    }
    for (let segment = 0, segmentTotal = segmentCount(phrase); segment < segmentTotal; segment++) {
      const base = (segments[2 * segment] as number) << 16;
      for (let index = segments[2 * segment + 1] as number, end = segments[2 * segment + 3] as number; index < end; index++) {
        const doc = base | (lows[index] as number);
        const freq = nibbles ? ((freqs[index >>> 1] as number) >>> ((index & 1) << 2)) & 15 : (freqs[index] as number);
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
 * through rows in order, or a dense list's bit and rank), each phrase's part kept apart and added
 * up in the query's order.
 */
export function rankAll(phrases: readonly Phrase[], norms: Float64Array, top: TopRows, keep: (id: number) => boolean): void {
  const order = phrases.map((_, index) => index).sort((a, b) => (phrases[a] as Phrase).length - (phrases[b] as Phrase).length);
  const rarest = phrases[order[0] as number] as Phrase;
  const candidates = new Int32Array(rarest.length);
  forEachRow(rarest, (row, _count, index) => (candidates[index] = row));
  const width = phrases.length;
  const parts = new Float64Array(candidates.length * width);
  const alive = new Uint8Array(candidates.length).fill(1);
  for (const which of order) {
    const phrase = phrases[which] as Phrase;
    const { segments, lows, bits, idf, freqs } = phrase;
    const nibbles = phrase.countBits === 4;
    const count = segmentCount(phrase);
    // Candidates ascend: the segment and the index only move forward.
    let segment = 0;
    let at = 0;
    for (let index = 0; index < candidates.length; index++) {
      if (alive[index] === 0) continue;
      const doc = candidates[index] as number;
      if (phrase === rarest) at = index;
      else if (bits !== null) {
        at = denseIndexOf(phrase, bits, doc);
        if (at < 0) {
          alive[index] = 0;
          continue;
        }
      } else {
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
      }
      const freq = nibbles ? ((freqs[at >>> 1] as number) >>> ((at & 1) << 2)) & 15 : (freqs[at] as number);
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
