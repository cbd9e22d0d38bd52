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
  // A document seen for the first time (every first run): nothing to carry, so no text is shingled.
  if (oldChunks.length === 0) return newChunks.map(() => ({ included: defaultIncluded, reason: "new-text", from: null }));
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
  const includedBySize = new Map<number, Set<string>>();
  const includedShingles = (size: number): Set<string> => {
    let set = includedBySize.get(size);
    if (!set) {
      set = new Set();
      oldChunks.forEach((chunk, index) => {
        if (chunk.included) for (const shingle of (oldTexts[index] as Shingled).at(size)) set?.add(shingle);
      });
      includedBySize.set(size, set);
    }
    return set;
  };
  // Per excluded old chunk, the passages only excluded chunks had: chunk overlap repeats a
  // neighbour's edge, and text the user included elsewhere is not private.
  const privateShingles = oldChunks.map((chunk, index) => {
    if (chunk.included) return null;
    const own = oldTexts[index] as Shingled;
    const included = includedShingles(own.natural);
    return { size: own.natural, shingles: new Set([...own.at(own.natural)].filter((shingle) => !included.has(shingle))) };
  });
  // Full-size shingles of the old chunks, indexed, so each new chunk meets only the old chunks it
  // shares a passage with (a document of 500 edited chunks would otherwise cost 250,000 pairs).
  const postings = new Map<string, number[]>();
  const shortOld: number[] = [];
  oldTexts.forEach((old, index) => {
    if (old.natural < SHINGLE_WORDS) {
      shortOld.push(index);
      return;
    }
    for (const shingle of old.at(SHINGLE_WORDS)) {
      const list = postings.get(shingle);
      if (list) list.push(index);
      else postings.set(shingle, [index]);
    }
  });

  return newChunks.map((chunk, index) => {
    const decided = decisions[index];
    if (decided) return decided;
    const text = createShingled(chunk.content);
    // Old chunks worth comparing: those sharing a full-size shingle, and every short one.
    const shared = new Map<number, { all: number; private: number }>();
    if (text.natural === SHINGLE_WORDS) {
      for (const shingle of text.at(SHINGLE_WORDS)) {
        for (const oldIndex of postings.get(shingle) ?? []) {
          const counts = shared.get(oldIndex) ?? { all: 0, private: 0 };
          counts.all += 1;
          if (privateShingles[oldIndex]?.shingles.has(shingle)) counts.private += 1;
          shared.set(oldIndex, counts);
        }
      }
    }
    const candidates = text.natural === SHINGLE_WORDS ? [...shared.keys(), ...shortOld] : oldTexts.map((_, oldIndex) => oldIndex);
    candidates.sort((a, b) => a - b);

    const privateShared = (oldIndex: number): number => {
      const privateSet = privateShingles[oldIndex] as { size: number; shingles: Set<string> };
      const counts = shared.get(oldIndex);
      if (counts && privateSet.size === SHINGLE_WORDS && text.natural === SHINGLE_WORDS) return counts.private;
      return countShared(text.at(privateSet.size), privateSet.shingles);
    };
    const fromExcluded = candidates.find((oldIndex) => {
      const privateSet = privateShingles[oldIndex];
      if (!privateSet || privateSet.shingles.size === 0) return false;
      return privateShared(oldIndex) >= Math.min(MIN_PRIVATE_SHINGLES, privateSet.shingles.size);
    });
    if (fromExcluded !== undefined) return { included: false, reason: "from-excluded", from: fromExcluded };

    let best = -1;
    let bestOverlap = 0;
    for (const oldIndex of candidates) {
      const old = oldTexts[oldIndex] as Shingled;
      const counts = shared.get(oldIndex);
      const overlap = counts && old.natural === SHINGLE_WORDS && text.natural === SHINGLE_WORDS
        ? counts.all / Math.min(text.at(SHINGLE_WORDS).size, old.at(SHINGLE_WORDS).size)
        : overlapCoefficient(text, old);
      if (overlap > bestOverlap) {
        best = oldIndex;
        bestOverlap = overlap;
      }
    }
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
