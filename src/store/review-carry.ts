/**
 * Carries include/exclude decisions from a document's old chunks to its new chunks by text, not
 * by position (pure; see docs/decisions/008-review-decisions-follow-text.md):
 *
 * 1. Same text (content hash): the k-th new copy of a text takes the k-th old copy's decision.
 * 2. Text derived from excluded text stays excluded: a new chunk that shares enough words with an
 *    excluded old chunk (words no included old chunk had) is excluded, whatever else it holds.
 *    So splitting an excluded chunk, or merging it with an included one, never includes it.
 * 3. An edited chunk takes the decision of the old chunk it overlaps most (overlap coefficient of
 *    word shingles at least MIN_OVERLAP).
 * 4. Anything else is new text and gets the folder's default.
 */

/** Words per shingle: three words in a row are rare enough to mean "the same passage". */
const SHINGLE_WORDS = 3;
/** Shared private shingles that make a new chunk "derived from excluded text" (about a clause). */
const MIN_PRIVATE_SHINGLES = 3;
/** Overlap coefficient |A∩B| / min(|A|,|B|) at which an edited chunk counts as the old one. */
const MIN_OVERLAP = 0.5;

export interface CarryOldChunk {
  content: string;
  contentHash: string;
  included: boolean;
}

export interface CarryNewChunk {
  content: string;
  contentHash: string;
}

export type CarryReason = "same-text" | "from-excluded" | "edited" | "new-text";

export interface CarriedDecision {
  included: boolean;
  reason: CarryReason;
  /** Index of the old chunk the decision came from; null for new text. */
  from: number | null;
}

/** One decision per new chunk, in order. */
export function carryReviewDecisions(
  oldChunks: readonly CarryOldChunk[],
  newChunks: readonly CarryNewChunk[],
  defaultIncluded: boolean,
): CarriedDecision[] {
  const decisions: (CarriedDecision | null)[] = newChunks.map(() => null);

  const oldByHash = new Map<string, number[]>();
  oldChunks.forEach((chunk, index) => {
    const list = oldByHash.get(chunk.contentHash) ?? [];
    list.push(index);
    oldByHash.set(chunk.contentHash, list);
  });
  newChunks.forEach((chunk, index) => {
    const next = oldByHash.get(chunk.contentHash)?.shift();
    if (next !== undefined) decisions[index] = { included: (oldChunks[next] as CarryOldChunk).included, reason: "same-text", from: next };
  });
  if (decisions.every((decision) => decision !== null)) return decisions as CarriedDecision[];

  const oldTexts = oldChunks.map((chunk) => createShingled(chunk.content));
  // Per excluded old chunk, the passages only excluded chunks had: chunk overlap repeats a
  // neighbour's edge, and text the user included elsewhere is not private.
  const privateShingles = oldChunks.map((chunk, index) => {
    if (chunk.included) return null;
    const own = oldTexts[index] as Shingled;
    const size = own.natural;
    const included = new Set<string>();
    oldChunks.forEach((other, otherIndex) => {
      if (other.included) for (const shingle of (oldTexts[otherIndex] as Shingled).at(size)) included.add(shingle);
    });
    return { size, shingles: new Set([...own.at(size)].filter((shingle) => !included.has(shingle))) };
  });

  return newChunks.map((chunk, index) => {
    const decided = decisions[index];
    if (decided) return decided;
    const text = createShingled(chunk.content);
    const fromExcluded = privateShingles.findIndex((privateSet) => {
      if (privateSet === null || privateSet.shingles.size === 0) return false;
      return countShared(text.at(privateSet.size), privateSet.shingles) >= Math.min(MIN_PRIVATE_SHINGLES, privateSet.shingles.size);
    });
    if (fromExcluded >= 0) return { included: false, reason: "from-excluded", from: fromExcluded };
    let best = -1;
    let bestOverlap = 0;
    oldTexts.forEach((old, oldIndex) => {
      const overlap = overlapCoefficient(text, old);
      if (overlap > bestOverlap) {
        best = oldIndex;
        bestOverlap = overlap;
      }
    });
    if (best >= 0 && bestOverlap >= MIN_OVERLAP) return { included: (oldChunks[best] as CarryOldChunk).included, reason: "edited", from: best };
    return { included: defaultIncluded, reason: "new-text", from: null };
  });
}

/** A text's words, with its shingle sets made on demand per size. */
interface Shingled {
  /** SHINGLE_WORDS, or fewer for a shorter text (then the whole text is one shingle). */
  natural: number;
  at(size: number): Set<string>;
}

function createShingled(text: string): Shingled {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const bySize = new Map<number, Set<string>>();
  return {
    natural: Math.max(1, Math.min(SHINGLE_WORDS, words.length)),
    at(size) {
      let result = bySize.get(size);
      if (!result) {
        result = new Set();
        for (let start = 0; start + size <= words.length; start += 1) result.add(words.slice(start, start + size).join(" "));
        bySize.set(size, result);
      }
      return result;
    },
  };
}

/** |A∩B| / min(|A|,|B|) over shingles of the shorter text's size: 1 when one contains the other. */
function overlapCoefficient(a: Shingled, b: Shingled): number {
  const size = Math.min(a.natural, b.natural);
  const first = a.at(size);
  const second = b.at(size);
  const smaller = Math.min(first.size, second.size);
  return smaller === 0 ? 0 : countShared(first, second) / smaller;
}

/** Lower-cased word trigrams (fewer words: the whole text as one shingle). */
export function shingles(text: string): Set<string> {
  const shingled = createShingled(text);
  return shingled.at(shingled.natural);
}

function countShared(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const item of small) if (large.has(item)) shared += 1;
  return shared;
}
