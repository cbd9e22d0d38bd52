import type { SqliteDatabase } from "./driver.js";
import type { Postings } from "./keyword-rank.js";
import { doubled, PostingsBuilder } from "./postings-builder.js";

/**
 * Every word's list read straight from FTS5's segments (`{table}_data` leaf pages), word after
 * word, for the keyword index's background reading (keyword-index.ts). Through `fts5vocab` a word
 * arrived as one string of all its instances: tens of MB for the commonest words at 1M chunks,
 * in SQLite's memory and again as a JavaScript string, ≈ 100 MB of serve's peak (decision 077).
 * Here a word's rows go from the page bytes into its list; a few 4 KB pages are held at a time.
 *
 * The format is fts5_index.c's (SQLite 3.x, detail=full): a structure record (id 10) lists the
 * segments by level, each a run of leaf pages (id = segid << 37 | page). A leaf has a 4-byte
 * header (offset of the first rowid when it precedes the first term, offset of the page index),
 * terms prefix-compressed against the previous term on the page (the first in full), each
 * followed by its doclist: a rowid (deltas after the first; the first on a page in full), then a
 * position list whose size varint carries the delete flag, columns switched by a 0x01 varint.
 * Position lists may run on over the following pages. A rowid in a newer segment replaces the
 * same rowid in older ones (a delete marker, an entry without positions, removes it); levels are
 * oldest last, and within a level segments are listed oldest first. Decision 078.
 *
 * Anything unexpected (another structure version with tombstones, detail other than full, a
 * malformed page) makes `createFtsSegmentReader` return null or a read throw `Fts5FormatError`:
 * the caller then reads through `fts5vocab` as before.
 */
export class Fts5FormatError extends Error {}

/** fts5_index.c: a leaf page's rowid is segid << (PAGE_B + HEIGHT_B + DLI_B) plus the page number. */
const SEGMENT_ROWID_SHIFT = 31 + 5 + 1;
const STRUCTURE_ROWID = 10;
/** The key byte of the main index's terms (prefix indexes use '1'…'9'). */
const MAIN_PREFIX = 0x30;
const STRUCTURE_V2 = [0xff, 0x00, 0x00, 0x01];

interface Segment {
  id: number;
  first: number;
  last: number;
}

/**
 * A segment's rows of one term: rows ascending with their weighted counts, NaN for a delete marker
 * (no positions). One per segment, reused from term to term: typed arrays that grow to the
 * segment's longest list, instead of new arrays per term (a common word's at 1M chunks took tens
 * of MB of garbage each, serve's peak while reading; decision 085). Rows as Int32 and counts as
 * Float32, as the packed lists keep them.
 */
class TermRows {
  rows = new Int32Array(1024);
  freqs = new Float32Array(1024);
  length = 0;
  key: Buffer = Buffer.alloc(0);

  /** Empties it for the next term. */
  reset(key: Buffer): this {
    this.key = key;
    this.length = 0;
    return this;
  }

  push(row: number, freq: number): void {
    if (this.length === this.rows.length) {
      this.rows = doubled(this.rows, new Int32Array(this.length * 2));
      this.freqs = doubled(this.freqs, new Float32Array(this.length * 2));
    }
    this.rows[this.length] = row;
    this.freqs[this.length++] = freq;
  }
}

export interface FtsSegmentReader {
  /** Every word after `word` (all words when null), in SQLite's order, with its list; stop early by breaking. */
  listsAfter(word: string | null): Iterable<[string, Postings]>;
  /** Bytes kept between calls for building lists: little once the last word has been read. */
  heldBytes(): number;
}

/** A cursor over one leaf page: SQLite varints (big-endian 7-bit groups, the ninth byte whole). */
class Page {
  offset = 4;
  readonly firstRowid: number;
  readonly leafEnd: number;
  readonly termOffsets: number[] = [];
  constructor(readonly bytes: Uint8Array) {
    if (bytes.length < 4) throw new Fts5FormatError("leaf page shorter than its header");
    this.firstRowid = (bytes[0] as number) * 256 + (bytes[1] as number);
    this.leafEnd = (bytes[2] as number) * 256 + (bytes[3] as number);
    if (this.leafEnd < 4 || this.leafEnd > bytes.length) throw new Fts5FormatError("leaf page footer out of range");
    let at = this.leafEnd;
    let term = 0;
    while (at < bytes.length) {
      const [value, next] = varintAt(bytes, at);
      term += value;
      this.termOffsets.push(term);
      at = next;
    }
  }

  varint(): number {
    const { bytes } = this;
    if (this.offset >= this.leafEnd) throw new Fts5FormatError("varint past the leaf's end");
    // One byte is the usual case (positions are deltas).
    const first = bytes[this.offset] as number;
    if (first < 0x80) {
      this.offset += 1;
      return first;
    }
    const [value, next] = varintAt(bytes, this.offset);
    this.offset = next;
    return value;
  }
}

function varintAt(bytes: Uint8Array, start: number): [number, number] {
  let value = 0;
  let at = start;
  for (let index = 0; index < 9; index++) {
    const byte = bytes[at++];
    if (byte === undefined) throw new Fts5FormatError("varint cut short");
    if (index === 8) return [value * 256 + byte, at];
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, at];
  }
  return [value, at];
}

/**
 * The segments of `table`'s index, newest first, or null when its format is not one this reader
 * knows (the caller reads through fts5vocab).
 */
function segmentsOf(structure: Uint8Array | undefined): Segment[] | null {
  if (structure === undefined || structure.length < 4) return null;
  let at = 4;
  const v2 = STRUCTURE_V2.every((byte, index) => structure[4 + index] === byte);
  if (v2) at += 4;
  const next = () => {
    const [value, after] = varintAt(structure, at);
    at = after;
    return value;
  };
  const levelCount = next();
  next(); // segments in all
  next(); // write counter
  const levels: Segment[][] = [];
  for (let level = 0; level < levelCount; level++) {
    next(); // input segments of an ongoing merge: their merged terms are trimmed away, so all is read as is
    const count = next();
    const segments: Segment[] = [];
    for (let index = 0; index < count; index++) {
      const segment = { id: next(), first: next(), last: next() };
      if (v2) {
        next();
        next();
        const tombstonePages = next();
        next();
        next();
        // Tombstones (contentless_delete tables) drop rows without a delete marker: not read here.
        if (tombstonePages > 0) return null;
      }
      segments.push(segment);
    }
    levels.push(segments);
  }
  return levels.flatMap((segments) => segments.reverse());
}

export function createFtsSegmentReader(db: SqliteDatabase, table: string, weights: { title: number; content: number }): FtsSegmentReader | null {
  const sql = db.prepare<[string], string>("SELECT sql FROM sqlite_master WHERE name = ?").pluck().get(table) ?? "";
  // Columns other than (title, content), or position lists of another shape: fts5vocab reads those.
  if (/\bdetail\s*=/i.test(sql) || /\bprefix\s*=/i.test(sql) || !/fts5\s*\(\s*title\s*,\s*content\s*,/i.test(sql)) return null;
  const block = db.prepare<[bigint | number], Uint8Array>(`SELECT block FROM "${table}_data" WHERE id = ?`).pluck();
  const seekPage = db.prepare<[number, Uint8Array], number>(`SELECT pgno FROM "${table}_idx" WHERE segid = ? AND term <= ? ORDER BY term DESC LIMIT 1`).pluck();
  if (segmentsOf(block.get(STRUCTURE_ROWID)) === null) return null;
  const weightOf = [weights.title, weights.content];

  /** One segment's terms after `after` (a key: MAIN_PREFIX then the word's UTF-8 bytes), in order. */
  function* termsOf(segment: Segment, after: Buffer): Generator<TermRows> {
    // Yielded again for every term: the caller is done with one term before it asks for the next.
    const rows = new TermRows();
    const pageAt = (number: number): Page | null => {
      if (number > segment.last) return null;
      const bytes = block.get((BigInt(segment.id) << BigInt(SEGMENT_ROWID_SHIFT)) + BigInt(number));
      if (bytes === undefined) throw new Fts5FormatError(`leaf ${number} of segment ${segment.id} missing`);
      return new Page(bytes);
    };
    // The page whose separator is the last at or before `after`: every term on earlier pages is smaller.
    const found = seekPage.get(segment.id, after);
    let number = Math.max(segment.first, found === undefined ? 0 : found >> 1);
    let page = pageAt(number);
    // Find the first term on a page (a page may hold only the rest of an earlier term's doclist).
    while (page !== null && page.termOffsets.length === 0) page = pageAt(++number);
    if (page === null) return;
    page.offset = page.termOffsets[0] as number;
    let termIndex = 0;
    let key = Buffer.alloc(0);
    for (;;) {
      // A term: in full when first on its page, else the bytes it shares with the previous one and its own.
      const keep = termIndex === 0 ? 0 : page.varint();
      const length = page.varint();
      if (keep > key.length || page.offset + length > page.leafEnd) throw new Fts5FormatError("term out of range");
      key = Buffer.concat([key.subarray(0, keep), page.bytes.subarray(page.offset, page.offset + length)]);
      page.offset += length;
      if (key[0] !== MAIN_PREFIX) return;
      const wanted = Buffer.compare(key, after) > 0;
      rows.reset(key);
      let doclistEnd = page.termOffsets[termIndex + 1] ?? page.leafEnd;
      // A term that ends its page has its doclist on the next one, from just after the header.
      while (page.offset >= page.leafEnd) {
        page = pageAt(++number);
        if (page === null) throw new Fts5FormatError("doclist past the segment's end");
        termIndex = -1;
        doclistEnd = page.termOffsets[0] ?? page.leafEnd;
      }
      let rowid = page.varint();
      /** The position list ran on to another page: the next rowid there is in full, not a delta. */
      let continued = false;
      // The entries of this term's doclist, over as many pages as it takes.
      for (;;) {
        const header = page.varint();
        let remaining = header >> 1;
        let column = 0;
        let freq = 0;
        let columnNext = false;
        // The position list: each varint a position in the current column, 0x01 then a column number.
        for (;;) {
          // The hottest loop of the reading (a byte or two a position): positions are only counted.
          const { bytes, leafEnd } = page;
          let weight = weightOf[column] ?? 0;
          while (remaining > 0 && page.offset < leafEnd) {
            const start = page.offset;
            if (columnNext) {
              column = page.varint();
              weight = weightOf[column] ?? 0;
              columnNext = false;
            } else if (bytes[start] === 1) {
              columnNext = true;
              page.offset = start + 1;
            } else {
              freq += weight;
              let at = start;
              while (((bytes[at] as number) & 0x80) !== 0 && at - start < 8) at++;
              page.offset = at + 1;
            }
            remaining -= page.offset - start;
          }
          if (page.offset > page.leafEnd) throw new Fts5FormatError("varint across the leaf's end");
          if (remaining <= 0) break;
          // Runs on over the next page, from just after its header.
          page = pageAt(++number);
          if (page === null) throw new Fts5FormatError("position list past the segment's end");
          termIndex = -1;
          doclistEnd = page.termOffsets[0] ?? page.leafEnd;
          continued = true;
        }
        if (remaining < 0) throw new Fts5FormatError("position list longer than its size");
        // The newest entry of a row is the row: with no positions (a delete marker) it is gone. A delete
        // flag with positions marks a row deleted and written again in the same segment.
        if (wanted) rows.push(rowid, header >> 1 === 0 ? Number.NaN : freq);
        if (page.offset < doclistEnd) {
          if (continued && page.offset !== page.firstRowid) throw new Fts5FormatError("rowid not where the page header says");
          const value = page.varint();
          rowid = continued ? value : rowid + value;
          continued = false;
          continue;
        }
        continued = false;
        if (page.offset < page.leafEnd) break; // the next term, on this page
        // The page is done: the doclist goes on at the next page's first rowid (in full), or it ends.
        let nextPage = pageAt(++number);
        while (nextPage !== null && nextPage.firstRowid === 0 && nextPage.termOffsets.length === 0) nextPage = pageAt(++number);
        if (nextPage === null) {
          if (wanted && rows.length > 0) yield rows;
          return;
        }
        page = nextPage;
        termIndex = -1;
        doclistEnd = page.termOffsets[0] ?? page.leafEnd;
        if (page.firstRowid !== 0 && page.firstRowid < doclistEnd) {
          page.offset = page.firstRowid;
          rowid = page.varint();
          continue;
        }
        page.offset = doclistEnd;
        break;
      }
      if (wanted && rows.length > 0) yield rows;
      termIndex += 1;
      if (termIndex >= page.termOffsets.length || page.offset !== page.termOffsets[termIndex]) throw new Fts5FormatError("term not where the page index says");
    }
  }

  const builder = new PostingsBuilder();
  return {
    heldBytes: () => builder.heldBytes,
    *listsAfter(word) {
      const segments = segmentsOf(block.get(STRUCTURE_ROWID));
      if (segments === null) throw new Fts5FormatError("structure record changed to an unknown format");
      const after = Buffer.concat([Buffer.from([MAIN_PREFIX]), Buffer.from(word ?? "")]);
      // Newest first: on equal keys and rows the earlier cursor wins.
      const cursors = segments.map((segment) => termsOf(segment, after));
      const heads = cursors.map((cursor) => cursor.next());
      for (;;) {
        let smallest: Buffer | null = null;
        for (const head of heads) if (!head.done && (smallest === null || Buffer.compare(head.value.key, smallest) < 0)) smallest = head.value.key;
        if (smallest === null) {
          // Every word read: the reading is done, and the buffers grown for the longest list go.
          builder.release();
          return;
        }
        const parts: TermRows[] = [];
        const taken: number[] = [];
        heads.forEach((head, index) => {
          if (head.done || !head.value.key.equals(smallest)) return;
          parts.push(head.value);
          taken.push(index);
        });
        const list = merge(parts, builder);
        // Only now the next terms: each cursor reuses its rows.
        for (const index of taken) heads[index] = (cursors[index] as Generator<TermRows>).next();
        if (list.length > 0) yield [smallest.subarray(1).toString("utf8"), list];
      }
    },
  };
}

/** One term's rows from several segments (newest first): a row's newest entry counts, a delete marker removes it. */
function merge(parts: TermRows[], builder: PostingsBuilder): Postings {
  if (parts.length === 1) {
    const { rows, freqs, length } = parts[0] as TermRows;
    for (let index = 0; index < length; index++) if (!Number.isNaN(freqs[index])) builder.add(rows[index] as number, freqs[index] as number);
    return builder.take();
  }
  const at = parts.map(() => 0);
  for (;;) {
    let low = Number.POSITIVE_INFINITY;
    let from = -1;
    parts.forEach((part, index) => {
      const row = (at[index] as number) < part.length ? (part.rows[at[index] as number] as number) : Number.POSITIVE_INFINITY;
      if (row < low) {
        low = row;
        from = index;
      }
    });
    if (from < 0) return builder.take();
    const part = parts[from] as TermRows;
    const index = at[from] as number;
    if (!Number.isNaN(part.freqs[index])) builder.add(low, part.freqs[index] as number);
    // Older segments' entries for the same row are replaced.
    parts.forEach((other, which) => {
      if ((at[which] as number) < other.length && other.rows[at[which] as number] === low) at[which] = (at[which] as number) + 1;
    });
  }
}
