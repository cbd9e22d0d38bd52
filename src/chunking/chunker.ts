import { ChunkpadError } from "../core/errors.js";
import type { ChunkDraft, ChunkingOptions, ParsedDocument } from "../core/types.js";
import { assembleText } from "./assemble.js";
import type { AssembledText } from "./assemble.js";
import { chunkMeta, sectionsBySpan } from "./meta.js";
import { pickOverlap, separatorTokens } from "./overlap.js";
import type { Overlap } from "./overlap.js";
import { countTokens, createSliceCounter } from "./tokens.js";
import { BREAK_LEVEL, splitIntoUnits, splitUnit } from "./units.js";
import type { TextUnit } from "./units.js";

export const MIN_CHUNK_SIZE_TOKENS = 32;

/**
 * How far a chunk may exceed chunkSizeTokens, in cl100k_base tokens of its content. Zero:
 * every chunk's content is re-counted after packing and trimmed to fit, so a 400-token chunk
 * plus the ~20-token context prefix always fits a 512-token embedding window.
 */
export const CHUNK_TOKEN_TOLERANCE = 0;

/** A heading starts a new chunk once the current one holds more than this share of the target in new text. */
const HEADING_BREAK_FILL = 1 / 3;
/** When a chunk is full, the best break (paragraph over sentence over word) is sought past this fill. */
const PREFERRED_BREAK_FILL = 1 / 2;

export function validateChunkingOptions(options: ChunkingOptions): void {
  const { chunkSizeTokens: size, chunkOverlapTokens: overlap } = options;
  if (!Number.isInteger(size) || size < MIN_CHUNK_SIZE_TOKENS) {
    throw new ChunkpadError(
      "INVALID_ARGUMENT",
      `Chunk size must be a whole number of at least ${MIN_CHUNK_SIZE_TOKENS} tokens (got ${String(size)}); the default is 400.`,
    );
  }
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size) {
    throw new ChunkpadError(
      "INVALID_ARGUMENT",
      `Chunk overlap must be a whole number of tokens from 0 to less than the chunk size ${size} (got ${String(overlap)}); the default is 60.`,
    );
  }
}

interface Packing {
  units: TextUnit[];
  size: number;
  rests: number[];
}

/**
 * Tokens from units[index] to the next heading, slide or sheet change, or the end: what is
 * left of the section if a chunk ends just before units[index].
 */
function sectionRests(units: readonly TextUnit[]): number[] {
  const rests = new Array<number>(units.length).fill(0);
  for (let index = units.length - 1; index >= 0; index--) {
    const next = units[index + 1];
    const carried = next && next.level < BREAK_LEVEL.HEADING ? (rests[index + 1] ?? 0) + separatorTokens(units, index + 1) : 0;
    rests[index] = (units[index]?.tokens ?? 0) + carried;
  }
  return rests;
}

/**
 * The break of the highest level (paragraph over sentence over word) past half the target,
 * the latest among equals; never right after a heading. With avoidSmallTail, a break that
 * would leave a sliver of the section (a third of the target or less) for the next chunk is
 * passed over, so the heading that follows still starts a chunk of its own.
 */
function bestBreak(packing: Packing, first: number, end: number, fills: number[], avoidSmallTail: boolean): number | undefined {
  const { units, size, rests } = packing;
  let best: number | undefined;
  let bestLevel = -1;
  for (let candidate = end; candidate > first; candidate--) {
    const fill = fills[candidate - first] ?? 0;
    if (fill < size * PREFERRED_BREAK_FILL) break;
    if (units[candidate - 1]?.heading) continue;
    const unit = units[candidate];
    const level = unit?.level ?? BREAK_LEVEL.HARD;
    const rest = unit && level < BREAK_LEVEL.HEADING ? (rests[candidate] ?? 0) : 0;
    if (avoidSmallTail && rest > 0 && rest <= size * HEADING_BREAK_FILL) continue;
    if (level > bestLevel) {
      best = candidate;
      bestLevel = level;
    }
  }
  return best;
}

/** Where to end a chunk that starts with units[first] and cannot take units[end]. */
function chooseBreak(packing: Packing, first: number, end: number, fills: number[]): number {
  const best = bestBreak(packing, first, end, fills, true) ?? bestBreak(packing, first, end, fills, false);
  if (best !== undefined) return best;
  for (let candidate = end; candidate > first + 1; candidate--) {
    if (!packing.units[candidate - 1]?.heading) return candidate;
  }
  return end;
}

/**
 * Greedy fill from units[first]; returns the index one past the chunk's last unit.
 * prefixTokens: tokens the chunk carries before its own text (overlap or a table header).
 */
function packChunk(packing: Packing, first: number, prefixTokens: number): number {
  const { units, size } = packing;
  const firstUnit = units[first];
  let fill = prefixTokens + (firstUnit?.tokens ?? 0);
  const fills = [0, fill];
  let end = first + 1;
  while (end < units.length) {
    const unit = units[end];
    if (!unit || unit.level === BREAK_LEVEL.HARD) break;
    // The prefix does not count: a chunk of mostly repeated text is not "reasonably full".
    if (unit.level === BREAK_LEVEL.HEADING && fill - prefixTokens > size * HEADING_BREAK_FILL) break;
    const cost = unit.tokens + separatorTokens(units, end);
    if (fill + cost > size) return chooseBreak(packing, first, end, fills);
    fill += cost;
    end++;
    fills.push(fill);
  }
  return end;
}

function trimmedRange(text: string, start: number, end: number): { start: number; end: number } {
  let trimmedStart = start;
  let trimmedEnd = end;
  while (trimmedStart < trimmedEnd && /\s/.test(text[trimmedStart] ?? "")) trimmedStart++;
  while (trimmedEnd > trimmedStart && /\s/.test(text[trimmedEnd - 1] ?? "")) trimmedEnd--;
  return { start: trimmedStart, end: trimmedEnd };
}

/** A table header repeated only when it is this share of the chunk size or less. */
const MAX_HEADER_SHARE = 1 / 4;

/**
 * The header to repeat at the top of a chunk starting with unit: its block is a table with a
 * header, and the chunk does not already start with that header (the table's first chunk).
 */
function tableHeader(assembled: AssembledText, unit: TextUnit, size: number): { text: string; tokens: number } | undefined {
  const span = assembled.spans[unit.spanIndex];
  const header = span?.block.kind === "table" ? span.block.header?.trim() : undefined;
  if (!span || !header) return undefined;
  if (unit.start === span.start && assembled.text.startsWith(header, span.start)) return undefined;
  const tokens = countTokens(header) + 1;
  return tokens <= size * MAX_HEADER_SHARE ? { text: header, tokens } : undefined;
}

/**
 * Splits a parsed document into chunks of at most options.chunkSizeTokens cl100k_base tokens
 * (CHUNK_TOKEN_TOLERANCE), each starting with up to options.chunkOverlapTokens tokens of the
 * previous chunk. Breaks prefer headings, then paragraphs, then sentences, then words; a
 * chunk after a heading break or a slide/sheet change starts fresh, without overlap.
 *
 * Offsets: each chunk's content is exactly assembleText(doc).text.slice(charStart, charEnd),
 * overlap included, after the repeated table header line(s) when the chunk starts inside a
 * table that has one. Pure and deterministic.
 */
export function chunkDocument(doc: ParsedDocument, options: ChunkingOptions): ChunkDraft[] {
  validateChunkingOptions(options);
  const size = options.chunkSizeTokens;
  const assembled = assembleText(doc);
  const { text, spans } = assembled;
  const counter = createSliceCounter(text);
  const units = splitIntoUnits(assembled, size, counter);
  const sections = sectionsBySpan(spans);
  const packing: Packing = { units, size, rests: sectionRests(units) };

  const drafts: ChunkDraft[] = [];
  let first = 0;
  let overlap: Overlap | null = null;
  while (first < units.length) {
    const chunkFirst = first;
    const firstUnit = units[first];
    if (!firstUnit) break;
    // A chunk inside a table starts with the table's header instead of overlap.
    let header = tableHeader(assembled, firstUnit, size);
    if (header) overlap = null;
    const prefixTokens = header ? header.tokens : overlap ? overlap.tokens + 1 : 0;
    let end = packChunk(packing, first, prefixTokens);

    // The packing counted units one by one; count the real text and give back units if the
    // sum was optimistic (it rarely is, and then only by a token or two).
    let range = trimmedRange(text, overlap?.start ?? firstUnit.start, units[end - 1]?.end ?? firstUnit.end);
    const content = (): string => (header ? `${header.text}\n` : "") + text.slice(range.start, range.end);
    let tooLong = false;
    // countTokens(content()), from the counts of the document's text (tokens.ts, createSliceCounter).
    while (counter.count(range.start, range.end, header ? `${header.text}\n` : "") > size + CHUNK_TOKEN_TOLERANCE) {
      if (end - 1 > first) {
        end--;
        while (end - 1 > first && units[end - 1]?.heading) end--;
      } else if (overlap) overlap = null;
      else if (header) header = undefined;
      else {
        tooLong = true;
        break;
      }
      range = trimmedRange(text, overlap?.start ?? firstUnit.start, units[end - 1]?.end ?? firstUnit.end);
    }
    if (tooLong) {
      // One unit alone counts over the limit once its leading whitespace is trimmed (BPE merges
      // " harbor" into one token but not "harbor"): split it and pack this chunk again.
      const parts = splitUnit(text, firstUnit, size);
      if (parts.length > 1) {
        units.splice(first, 1, ...parts);
        packing.rests = sectionRests(units);
        continue;
      }
    }

    if (range.end > range.start) {
      drafts.push({ content: content(), meta: chunkMeta(spans, sections, range.start, range.end) });
    }

    first = end;
    const next = units[first];
    overlap = null;
    if (next && next.level < BREAK_LEVEL.HEADING && options.chunkOverlapTokens > 0) {
      const budget = Math.min(options.chunkOverlapTokens, size - next.tokens - 1 - separatorTokens(units, first));
      overlap = pickOverlap(text, units, chunkFirst, first, budget);
    }
  }
  return drafts;
}
