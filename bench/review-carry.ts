// Cost of carrying review decisions when a document's chunks are replaced (syncDocument):
// `npx tsx bench/review-carry.ts [sizes, default 50,500,2000]`. Worst case: every chunk
// boundary moved (re-chunked after an insert at the top), so no content hash matches and every
// chunk goes through the overlap match; one chunk in ten excluded. Chunk text is random words
// from a 5,000-word vocabulary, 300 words a chunk. Prints figures only; asserts nothing.
import { sha256Hex } from "../src/core/chunk-ref.js";
import { carryReviewDecisions } from "../src/store/review-carry.js";

const WORDS_PER_CHUNK = 300;
const SHIFT_WORDS = 20;
const vocabulary = Array.from({ length: 5000 }, (_, index) => `word${index}`);
let seed = 1;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const text = (count: number) => Array.from({ length: count }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(" ");

const sizes = (process.argv[2] ?? "50,500,2000").split(",").map(Number);
for (const count of sizes) {
  const old = Array.from({ length: count }, (_, index) => {
    const content = text(WORDS_PER_CHUNK);
    return { content, contentHash: sha256Hex(content), included: index % 10 !== 3 };
  });
  const shifted = old.map((chunk, index) => {
    const next = old[index + 1]?.content.split(" ").slice(0, SHIFT_WORDS).join(" ") ?? "";
    const content = `${text(SHIFT_WORDS)} ${chunk.content.split(" ").slice(SHIFT_WORDS).join(" ")} ${next}`;
    return { content, contentHash: sha256Hex(content) };
  });
  const started = performance.now();
  const decisions = carryReviewDecisions(old, shifted, true);
  const elapsed = performance.now() - started;
  const excluded = decisions.filter((decision) => !decision.included).length;
  process.stdout.write(`${count} chunks, all moved: ${elapsed.toFixed(0)} ms (${(elapsed / count).toFixed(2)} ms a chunk), ${excluded} excluded\n`);
}
