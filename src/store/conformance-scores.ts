import { expect, it, type TestAPI } from "vitest";
import type { KeywordQuery } from "../core/keyword-query.js";
import type { MainStore } from "./contract.js";

/**
 * Part of the store conformance suite (conformance.ts): a backend scores chunks it is given as
 * its searches score them, so that hybrid search can give every candidate both numbers.
 */
export interface ScoreCaseHelpers {
  /** A store holding animals.md (four chunks: cat, dog, eel by the river, fox near the river) and plants.md. */
  seeded: () => Promise<{ store: MainStore; ref: (n: number, file?: string) => string }>;
  embed: (store: MainStore, vectors: Record<string, Float32Array>) => Promise<unknown>;
  words: (...terms: string[]) => KeywordQuery;
  vector: (...values: number[]) => Float32Array;
  /** `it` for a store that stores vectors, `it.skip` (a declared skip) for one that does not. */
  vectorCase: TestAPI | typeof it.skip;
}

export function runScoreCases({ seeded, embed, words, vector, vectorCase }: ScoreCaseHelpers): void {
  it("scores given chunks for a query with the numbers a search gives them, leaving out chunks it does not match", async () => {
    const { store, ref } = await seeded();
    const query: KeywordQuery = { ...words("river", "fox"), match: "any" };
    const searched = await store.keywordSearch(query, { limit: 10 });
    const scores = await store.keywordScores(query, [ref(1), ref(2), ref(3), ref(4)]);
    expect([...scores.keys()].sort()).toEqual(searched.map((hit) => hit.chunk.ref).sort());
    for (const hit of searched) expect(scores.get(hit.chunk.ref)).toBeCloseTo(hit.score, 9);
    expect((await store.keywordScores(words("river", "fox"), [ref(3), ref(4)])).size).toBe(1);
  });

  it("ranks a keyword search's chunks by reference as it ranks them whole, with each one's document and vector flag", async () => {
    const { store, ref } = await seeded();
    const queries: KeywordQuery[] = [words("river"), { ...words("river", "fox", "cat"), match: "any" }, { ...words("river"), exclude: [["eel"]] }, words("nothing")];
    for (const query of queries) {
      for (const limit of [1, 10]) {
        const whole = await store.keywordSearch(query, { limit });
        // Twice: a search that reuses what the last one read gives the same answer.
        for (let time = 0; time < 2; time++) {
          expect(await store.keywordSearchRefs(query, { limit })).toEqual(whole.map((hit) => ({ ref: hit.chunk.ref, documentId: hit.chunk.documentId, score: hit.score, hasVector: hit.hasVector })));
        }
      }
    }
    // Within a scope too: one document, no folder.
    const [animals] = (await store.keywordSearch(words("river"), { limit: 1 })).map((hit) => hit.chunk.documentId);
    expect((await store.keywordSearchRefs(words("river"), { limit: 10, documentIds: [animals ?? ""] })).map((hit) => hit.ref).sort()).toEqual([ref(3), ref(4)].sort());
    expect(await store.keywordSearchRefs(words("river"), { limit: 10, folderIds: [] })).toEqual([]);
  });

  vectorCase("scores given chunks against a query vector as a vector search would, leaving out chunks without a vector", async () => {
    const { store, ref } = await seeded();
    expect(store.vectorAvailable).toBe(true);
    await store.ensureVectorTable(2);
    await embed(store, { [ref(1)]: vector(1, 0), [ref(2)]: vector(0.6, 0.8) });
    const scores = await store.vectorScores(vector(1, 0), [ref(1), ref(2), ref(3), "nowhere:x.md#1"]);
    expect([...scores.keys()].sort()).toEqual([ref(1), ref(2)].sort());
    expect(scores.get(ref(2))).toBeCloseTo(0.6, 5);
    const searched = await store.vectorSearch(vector(1, 0), { k: 2 });
    // An approximate index may keep vectors at lower precision (f16): the same number to 3 digits.
    for (const hit of searched) expect(scores.get(hit.chunk.ref)).toBeCloseTo(hit.score, 3);
  });
}
