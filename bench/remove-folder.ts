/**
 * What private deletion costs: adds two folders of synthetic chunks, then times removing one
 * (secure_delete, FTS5 secure-delete, WAL checkpoint) and the size of the files afterwards.
 * Usage: npx tsx bench/remove-folder.ts [chunksPerFolder]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openMainStore } from "../src/store/index.js";

const chunksPerFolder = Number(process.argv[2] ?? 20_000);
const CHUNKS_PER_DOCUMENT = 50;
const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-bench-remove-"));
const file = path.join(directory, "chunkpad.db");
const store = openMainStore({ path: file, loadVectorExtension: false });
const words = "river heron lighthouse moor quarterly revenue aardvark campaign tomato sun watering garden".split(" ");

function text(seed: number): string {
  return Array.from({ length: 300 }, (_, index) => `${words[(seed * 7 + index * 13) % words.length]}${(seed + index) % 997}`).join(" ");
}

for (const name of ["removed", "kept"]) {
  const folder = await store.upsertFolder(`/${name}`, `/${name}/_chunks`);
  for (let document = 0; document < chunksPerFolder / CHUNKS_PER_DOCUMENT; document += 1) {
    const chunks = Array.from({ length: CHUNKS_PER_DOCUMENT }, (_, index) => ({ content: text(document * CHUNKS_PER_DOCUMENT + index), meta: {} }));
    await store.syncDocument({ folderId: folder.id, relativePath: `doc-${document}.txt`, title: `Document ${document}`, documentType: "txt", fileSize: 1, pageCount: null, chunks });
  }
}
const sizeMb = () => ["", "-wal"].reduce((sum, suffix) => sum + (fs.existsSync(file + suffix) ? fs.statSync(file + suffix).size : 0), 0) / 1e6;
console.log(`database before: ${sizeMb().toFixed(1)} MB with ${2 * chunksPerFolder} chunks`);
const removed = await store.getFolderByPath("/removed");
const started = performance.now();
if (removed) await store.removeFolder(removed.id);
console.log(`remove of ${chunksPerFolder} chunks: ${(performance.now() - started).toFixed(0)} ms; database after: ${sizeMb().toFixed(1)} MB (freed pages are zeroed, not returned to the disk)`);
await store.close();
fs.rmSync(directory, { recursive: true, force: true });
