import type { ParsedBlock } from "../core/types.js";
import type { AssembledText } from "./assemble.js";
import { segmentText } from "./segment.js";
import { countTokens, createSliceCounter, splitAtTokenLimit, type SliceCounter } from "./tokens.js";

/**
 * How good a place to end a chunk the start of a unit is. Higher is better; HARD always
 * ends a chunk (the slide or sheet changed, and a chunk carries only one of each).
 */
export const BREAK_LEVEL = { PIECE: 0, WORD: 1, SENTENCE: 2, BLOCK: 3, HEADING: 4, HARD: 5 } as const;
export type BreakLevel = (typeof BREAK_LEVEL)[keyof typeof BREAK_LEVEL];

/**
 * The smallest piece the chunker moves: a sentence (or a line of a table, list or code
 * block), or a word or word fragment of one too long to fit a chunk. Units of one block are
 * contiguous (each carries its leading whitespace); blocks are separated by BLOCK_SEPARATOR.
 */
export interface TextUnit {
  /** [start, end) in the assembled text. */
  start: number;
  end: number;
  tokens: number;
  /** The break quality just before this unit. */
  level: BreakLevel;
  /** Index into AssembledText.spans. */
  spanIndex: number;
  /** Part of a heading block: a chunk never ends on one. */
  heading: boolean;
}

interface Range {
  start: number;
  end: number;
}

// A sentence ends at . ! ? … (plus closing quotes/brackets) before whitespace, or at a CJK full
// stop, or at a blank line.
const SENTENCE_END = /[.!?…]+["'”’)\]]*(?=\s)|[。！？]+["'”’」』）)]*|\n[ \t]*(?=\n)/g;
const LINE_END = /\n/g;

const SURELY_TOO_LONG_CHARS_PER_TOKEN = 16;

/** Made at first use (loading ICU's break rules costs ≈ 12 ms a process). */
let wordSegmenter: Intl.Segmenter | undefined;

/** Offsets (relative to text) where a new sentence or line starts, excluding 0. */
function sentenceBoundaries(text: string, kind: ParsedBlock["kind"]): number[] {
  const cuts = new Set<number>();
  const byLine = kind === "table" || kind === "list" || kind === "code";
  if (byLine) for (const match of text.matchAll(LINE_END)) cuts.add(match.index);
  if (kind !== "table" && kind !== "code") {
    for (const match of text.matchAll(SENTENCE_END)) cuts.add(match.index + match[0].length);
  }
  const sorted = [...cuts].filter((cut) => cut > 0 && cut < text.length).sort((a, b) => a - b);
  // A cut after only whitespace would make a blank unit; let the whitespace lead the next one.
  const kept: number[] = [];
  let previous = 0;
  for (const cut of sorted) {
    if (/\S/.test(text.slice(previous, cut))) {
      kept.push(cut);
      previous = cut;
    }
  }
  return kept;
}

/**
 * Word starts inside text[start, end): each word keeps the whitespace before it, so words are
 * contiguous and tokenize as they would in place. Uses the ICU word segmenter, so CJK text
 * without spaces still splits into words.
 */
export function wordRanges(text: string, start: number, end: number): Range[] {
  const slice = text.slice(start, end);
  const cuts: number[] = [0];
  for (const segment of segmentText((wordSegmenter ??= new Intl.Segmenter(undefined, { granularity: "word" })), slice)) {
    if (!segment.isWordLike || segment.index === 0) continue;
    let cut = segment.index;
    while (cut > 0 && /\s/.test(slice[cut - 1] ?? "")) cut--;
    if (cut > (cuts[cuts.length - 1] ?? 0)) cuts.push(cut);
  }
  cuts.push(slice.length);
  const ranges: Range[] = [];
  for (let index = 0; index + 1 < cuts.length; index++) {
    ranges.push({ start: start + (cuts[index] ?? 0), end: start + (cuts[index + 1] ?? 0) });
  }
  return ranges;
}

function firstLevel(spans: AssembledText["spans"], spanIndex: number): BreakLevel {
  const block = spans[spanIndex]?.block;
  const previous = spans[spanIndex - 1]?.block;
  if (!block) return BREAK_LEVEL.BLOCK;
  if (previous && (block.slide !== previous.slide || block.sheet !== previous.sheet)) return BREAK_LEVEL.HARD;
  return block.kind === "heading" ? BREAK_LEVEL.HEADING : BREAK_LEVEL.BLOCK;
}

/**
 * Cuts the assembled text into units of at most maxTokens tokens each. Each unit's text is
 * tokenized once (and an over-long sentence's words once more), so the cost is linear; `counter`
 * counts slices of the assembled text (the chunker's, made once for the document).
 */
export function splitIntoUnits(assembled: AssembledText, maxTokens: number, counter: SliceCounter = createSliceCounter(assembled.text)): TextUnit[] {
  const { text, spans } = assembled;
  const units: TextUnit[] = [];

  spans.forEach((span, spanIndex) => {
    const heading = span.block.kind === "heading";
    let level: BreakLevel = firstLevel(spans, spanIndex);
    const push = (range: Range, tokens: number, unitLevel: BreakLevel): void => {
      units.push({ start: range.start, end: range.end, tokens, level: unitLevel, spanIndex, heading });
    };

    const blockText = text.slice(span.start, span.end);
    const cuts = heading ? [] : sentenceBoundaries(blockText, span.block.kind);
    const sentenceStarts = [0, ...cuts];
    sentenceStarts.forEach((relativeStart, index) => {
      const range = { start: span.start + relativeStart, end: span.start + (sentenceStarts[index + 1] ?? blockText.length) };
      // Prose runs about 4 characters a token; a sentence this long cannot fit, so it goes
      // straight to words rather than being tokenized twice.
      const tokens = range.end - range.start > maxTokens * SURELY_TOO_LONG_CHARS_PER_TOKEN ? Infinity : counter.count(range.start, range.end);
      if (tokens <= maxTokens) {
        push(range, tokens, level);
        level = BREAK_LEVEL.SENTENCE;
        return;
      }
      for (const word of wordRanges(text, range.start, range.end)) {
        const wordText = text.slice(word.start, word.end);
        for (const piece of splitAtTokenLimit(wordText, maxTokens)) {
          push({ start: word.start + piece.start, end: word.start + piece.end }, piece.tokens, level);
          level = BREAK_LEVEL.PIECE;
        }
        level = BREAK_LEVEL.WORD;
      }
      level = BREAK_LEVEL.SENTENCE;
    });
  });
  return units;
}

/**
 * A unit cut smaller: into its words, or, for a single word, into pieces of at most maxTokens
 * tokens counted without leading whitespace. One unit back means it cannot be cut.
 */
export function splitUnit(text: string, unit: TextUnit, maxTokens: number): TextUnit[] {
  const words = wordRanges(text, unit.start, unit.end);
  const byWord = words.length > 1;
  const ranges = byWord ? words : pieceRanges(text, unit, maxTokens);
  if (ranges.length < 2) return [unit];
  return ranges.map((range, index) => ({
    ...unit,
    start: range.start,
    end: range.end,
    tokens: countTokens(text.slice(range.start, range.end)),
    level: index === 0 ? unit.level : byWord ? BREAK_LEVEL.WORD : BREAK_LEVEL.PIECE,
  }));
}

function pieceRanges(text: string, unit: TextUnit, maxTokens: number): Range[] {
  let start = unit.start;
  while (start < unit.end && /\s/.test(text[start] ?? "")) start++;
  const ranges = splitAtTokenLimit(text.slice(start, unit.end), maxTokens).map((piece) => ({ start: start + piece.start, end: start + piece.end }));
  // The leading whitespace stays with the unit, so units remain contiguous.
  if (ranges[0]) ranges[0].start = unit.start;
  return ranges;
}
