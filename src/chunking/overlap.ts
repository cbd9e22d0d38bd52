import { countTokens } from "./tokens.js";
import { BREAK_LEVEL, wordRanges } from "./units.js";
import type { TextUnit } from "./units.js";

/** The tail of one chunk repeated at the head of the next: it starts at `start`. */
export interface Overlap {
  start: number;
  tokens: number;
}

/** Tokens one BLOCK_SEPARATOR ("\n\n") costs between units of different blocks. */
export function separatorTokens(units: readonly TextUnit[], index: number): number {
  const unit = units[index];
  const previous = units[index - 1];
  return unit && previous && unit.spanIndex !== previous.spanIndex ? 1 : 0;
}

/**
 * Picks the overlap for the chunk after units[first, end): at most budget tokens from the end
 * of the chunk, starting at a sentence start when that gives at least half the budget,
 * otherwise at the word start that gives the most; never mid-word and never the whole chunk.
 */
export function pickOverlap(text: string, units: readonly TextUnit[], first: number, end: number, budget: number): Overlap | null {
  if (budget <= 0 || end - first < 1) return null;
  let used = 0;
  let sentenceStart: Overlap | null = null;
  let wordStart: Overlap | null = null;

  let index = end - 1;
  for (; index > first; index--) {
    const unit = units[index];
    if (!unit) break;
    const cost = unit.tokens + separatorTokens(units, index + 1 < end ? index + 1 : -1);
    if (used + cost > budget) break;
    used += cost;
    if (unit.level >= BREAK_LEVEL.SENTENCE) sentenceStart = { start: unit.start, tokens: used };
    if (unit.level >= BREAK_LEVEL.WORD) wordStart = { start: unit.start, tokens: used };
  }

  // The unit that did not fit whole (or the chunk's first unit): take whole words from its end.
  const partial = units[index];
  if (partial) {
    const words = wordRanges(text, partial.start, partial.end);
    const separator = index + 1 < end ? separatorTokens(units, index + 1) : 0;
    let partialUsed = used + separator;
    for (let word = words.length - 1; word >= 0; word--) {
      const range = words[word];
      if (!range) break;
      const cost = countTokens(text.slice(range.start, range.end));
      if (partialUsed + cost > budget) break;
      partialUsed += cost;
      const startsWord = word > 0 || (index > first && partial.level >= BREAK_LEVEL.WORD);
      if (!startsWord) continue;
      if (word === 0 && partial.level >= BREAK_LEVEL.SENTENCE) sentenceStart = { start: range.start, tokens: partialUsed };
      wordStart = { start: range.start, tokens: partialUsed };
    }
  }

  if (sentenceStart && sentenceStart.tokens * 2 >= budget) return sentenceStart;
  return wordStart ?? sentenceStart;
}
