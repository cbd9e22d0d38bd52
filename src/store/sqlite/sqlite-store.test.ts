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
runStoreSuite({ name: "SQLite without sqlite-vec", open: () => openMainStore({ path: path.join(directory, `store-${(count += 1)}.db`), loadVectorExtension: false }) });
