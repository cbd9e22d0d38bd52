import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { runStoreSuite } from "../conformance.js";
import { openMainStore } from "./sqlite-store.js";

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-store-suite-"));
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));
let count = 0;

runStoreSuite({ name: "SQLite", open: (opener) => openMainStore({ ...opener, path: path.join(directory, `store-${(count += 1)}.db`) }), reopen: async (store, opener) => openMainStore({ ...opener, path: store.path }) });
runStoreSuite({ name: "SQLite without sqlite-vec", vectors: false, open: (opener) => openMainStore({ ...opener, path: path.join(directory, `store-${(count += 1)}.db`), loadVectorExtension: false }) });
// As `serve` and `mcp` open it: the keyword index kept in memory (decision 031).
runStoreSuite({ name: "SQLite with the keyword index in memory (serve, mcp)", open: (opener) => openMainStore({ ...opener, path: path.join(directory, `store-${(count += 1)}.db`), keywordIndexInMemory: true }), reopen: async (store, opener) => openMainStore({ ...opener, path: store.path, keywordIndexInMemory: true }) });
// Vector search through the approximate index (HNSW) from the first vector, as a large collection searches.
runStoreSuite({ name: "SQLite through the approximate vector index", open: (opener) => openMainStore({ ...opener, path: path.join(directory, `store-${(count += 1)}.db`), annThreshold: 1 }), reopen: async (store, opener) => openMainStore({ ...opener, path: store.path, annThreshold: 1 }) });

it("rebuilds the keyword index once when Node's ICU (which cuts CJK text into words) is another than the one that built it", async () => {
  const file = path.join(directory, `store-${(count += 1)}.db`);
  const first = openMainStore({ path: file, icuVersion: "70.1" });
  const folder = await first.upsertFolder("/zh", "/zh/_chunks");
  await first.syncDocument({ folderId: folder.id, relativePath: "zh.md", title: "zh", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content: "我们明天在北京开会。", meta: {} }] });
  expect(await first.getMeta("keyword.icu")).toBe("70.1");
  await first.close();
  const second = openMainStore({ path: file, icuVersion: "78.2" });
  expect(await second.getMeta("keyword.icu")).toBe("78.2");
  expect(await second.integrityCheck()).toEqual({ ok: true, problems: [] });
  const hits = await second.keywordSearch({ terms: [{ word: "北京", prefix: false }], match: "all", phrases: [], exclude: [] }, { limit: 5 });
  expect(hits.map((hit) => hit.chunk.relativePath)).toEqual(["zh.md"]);
  await second.close();
});
