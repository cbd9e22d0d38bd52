import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { runStoreSuite } from "../conformance.js";
import { openMainStore } from "./sqlite-store.js";

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-store-suite-"));
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));
let count = 0;

runStoreSuite({ name: "SQLite", open: () => openMainStore({ path: path.join(directory, `store-${(count += 1)}.db`) }), reopen: async (store) => openMainStore({ path: store.path }) });
runStoreSuite({ name: "SQLite without sqlite-vec", vectors: false, open: () => openMainStore({ path: path.join(directory, `store-${(count += 1)}.db`), loadVectorExtension: false }) });
// As `serve` and `mcp` open it: the keyword index kept in memory (decision 031).
runStoreSuite({ name: "SQLite with the keyword index in memory (serve, mcp)", open: () => openMainStore({ path: path.join(directory, `store-${(count += 1)}.db`), keywordIndexInMemory: true }), reopen: async (store) => openMainStore({ path: store.path, keywordIndexInMemory: true }) });
// Vector search through the approximate index (HNSW) from the first vector, as a large collection searches.
runStoreSuite({ name: "SQLite through the approximate vector index", open: () => openMainStore({ path: path.join(directory, `store-${(count += 1)}.db`), annThreshold: 1 }), reopen: async (store) => openMainStore({ path: store.path, annThreshold: 1 }) });
