import { bitCount, forEachRow, RANK_BLOCK_WORDS, type Postings } from "./keyword-rank.js";

/**
 * Builds a word's list as the keyword index reads it (FTS5's pages or fts5vocab rows): rows in
 * ascending order with their counts, packed by `take()` into the smallest form that holds them
 * (a bitmap with a rank directory for a dense list, 16-bit row ids by 64k segment otherwise;
 * counts in 4 or 8 bits when they fit). The ranking reads them (keyword-rank.ts).
 */

/** Rows a list builder holds before it first grows. */
const BUILDER_ROWS = 1024;
const EMPTY_LOWS = new Uint16Array(0);

/** One growable list of (row, count) pairs, packed when taken. */
export class PostingsBuilder {
  private rows = new Int32Array(BUILDER_ROWS);
  private freqs = new Float64Array(BUILDER_ROWS);
  private length = 0;

  /** Bytes of the buffers kept for the next list (12 a row, grown to the longest list yet). */
  get heldBytes(): number {
    return this.rows.byteLength + this.freqs.byteLength;
  }

  /**
   * Lets go of buffers grown for long lists (at 1M chunks, 12 MB for the commonest word), once no
   * more lists are coming soon: kept between lists, they spare each list regrowing them.
   */
  release(): void {
    if (this.rows.length === BUILDER_ROWS) return;
    this.rows = new Int32Array(BUILDER_ROWS);
    this.freqs = new Float64Array(BUILDER_ROWS);
    this.length = 0;
  }

  /** Rows come in ascending order; the same row again adds to its count. */
  add(row: number, freq: number): void {
    if (this.length > 0 && this.rows[this.length - 1] === row) {
      this.freqs[this.length - 1] = (this.freqs[this.length - 1] as number) + freq;
      return;
    }
    if (this.length === this.rows.length) {
      this.rows = doubled(this.rows, new Int32Array(this.length * 2));
      this.freqs = doubled(this.freqs, new Float64Array(this.length * 2));
    }
    this.rows[this.length] = row;
    this.freqs[this.length++] = freq;
  }

  /**
   * `old` without the rows `dead` marks (1), with `added`'s rows merged in, ids ascending: a main
   * list with the changed chunks folded in (keyword-index.ts).
   */
  merged(old: Postings, added: Postings | undefined, dead: Uint8Array): Postings {
    const addedRows: number[] = [];
    const addedCounts: number[] = [];
    if (added !== undefined)
      forEachRow(added, (row, count) => {
        addedRows.push(row);
        addedCounts.push(count);
      });
    let at = 0;
    const addChanged = (upTo: number) => {
      while (at < addedRows.length && (addedRows[at] as number) < upTo) this.add(addedRows[at] as number, addedCounts[at++] as number);
    };
    forEachRow(old, (doc, count) => {
      if (dead[doc] === 1) return;
      addChanged(doc);
      this.add(doc, count);
    });
    addChanged(Number.POSITIVE_INFINITY);
    return this.take();
  }

  take(): Postings {
    const { rows, freqs, length } = this;
    let bytes = true;
    let nibbles = true;
    let segmentTotal = 0;
    for (let index = 0; index < length; index++) {
      const freq = freqs[index] as number;
      if (bytes && !(Number.isInteger(freq) && freq >= 0 && freq <= 255)) bytes = false;
      if (nibbles && !(bytes && freq <= 15)) nibbles = false;
      if (index === 0 || (rows[index] as number) >>> 16 !== (rows[index - 1] as number) >>> 16) segmentTotal += 1;
    }
    const counts = nibbles ? new Uint8Array((length + 1) >> 1) : bytes ? Uint8Array.from(freqs.subarray(0, length)) : Float32Array.from(freqs.subarray(0, length));
    if (nibbles) for (let index = 0; index < length; index++) counts[index >> 1] = (counts[index >> 1] as number) | ((freqs[index] as number) << ((index & 1) << 2));
    const countBits = nibbles ? 4 : bytes ? 8 : 32;
    this.length = 0;
    const bitsFrom = length > 0 ? (rows[0] as number) >>> 5 : 0;
    const words = length > 0 ? ((rows[length - 1] as number) >>> 5) - bitsFrom + 1 : 0;
    const blocks = Math.ceil(words / RANK_BLOCK_WORDS);
    if (length > 0 && 5 * words + 4 * blocks < 2 * length + 8 * segmentTotal) {
      const bits = new Uint32Array(words);
      for (let index = 0; index < length; index++) {
        const row = rows[index] as number;
        bits[(row >>> 5) - bitsFrom] = (bits[(row >>> 5) - bitsFrom] as number) | (1 << (row & 31));
      }
      const ranks = new Uint32Array(blocks);
      const offsets = new Uint8Array(words);
      for (let block = 0, before = 0; block < blocks; block++) {
        ranks[block] = before;
        for (let word = block * RANK_BLOCK_WORDS, end = Math.min(words, word + RANK_BLOCK_WORDS); word < end; word++) {
          offsets[word] = before - (ranks[block] as number);
          before += bitCount(bits[word] as number);
        }
      }
      return { length, lows: EMPTY_LOWS, segments: Int32Array.of(-1, length), bits, bitsFrom, ranks, offsets, freqs: counts, countBits };
    }
    const lows = new Uint16Array(length);
    const segments = new Int32Array(2 * segmentTotal + 2);
    for (let index = 0, at = 0; index < length; index++) {
      const row = rows[index] as number;
      if (index === 0 || row >>> 16 !== (rows[index - 1] as number) >>> 16) {
        segments[at++] = row >>> 16;
        segments[at++] = index;
      }
      lows[index] = row & 0xffff;
    }
    segments[2 * segmentTotal] = -1;
    segments[2 * segmentTotal + 1] = length;
    return { length, lows, segments, bits: null, bitsFrom: 0, ranks: null, offsets: null, freqs: counts, countBits };
  }
}

/** `into` (twice as long) with `array` copied to its start. */
export function doubled<T extends Int32Array | Float32Array | Float64Array>(array: T, into: T): T {
  into.set(array);
  return into;
}
