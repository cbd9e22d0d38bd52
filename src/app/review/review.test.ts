import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { embedTextHash } from "../../core/chunk-ref.js";
import { openMainStore, type MainStore } from "../../store/index.js";
import { setReviewState } from "./review.js";
import { listChunkStates } from "./review-states.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

async function setup() {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-review-"));
  const store: MainStore = openMainStore({ path: path.join(directory, "chunkpad.db") });
  cleanups.push(async () => {
    await store.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });
  const root = path.join(directory, "docs");
  const folderId = (await store.upsertFolder(root, path.join(root, "_chunks"))).id;
  const otherRoot = path.join(directory, "other");
  const otherId = (await store.upsertFolder(otherRoot, path.join(otherRoot, "_chunks"))).id;
  const add = async (folder: string, relativePath: string, count: number) =>
    await store.syncDocument({
      folderId: folder,
      relativePath,
      title: relativePath,
      documentType: "md",
      fileSize: 1,
      pageCount: null,
      chunks: Array.from({ length: count }, (_, index) => ({ content: `${relativePath} chunk ${index + 1}`, meta: {} })),
    });
  await add(folderId, "notes.md", 2);
  await add(folderId, "reports/q3.pdf", 3);
  await add(folderId, "reports/2024/q4.pdf", 1);
  await add(folderId, "letters/a.docx", 1);
  await add(otherId, "notes.md", 1);
  const excluded = async () => (await store.listExcludedRefs()).sort();
  return { store, root, folderId, otherId, excluded, ref: (file: string, n: number, folder = folderId) => `${folder}:${file}#${n}` };
}

describe("include / exclude", () => {
  it("excludes one chunk by ref and includes it again, counting only real changes", async () => {
    const { store, excluded, ref } = await setup();
    const first = await setReviewState(store, [ref("notes.md", 2)], false);
    expect(first).toMatchObject({ matchedChunks: 1, changed: 1, unmatched: [] });
    expect(first.targets[0]).toMatchObject({ kind: "ref", chunkCount: 1 });
    expect(await excluded()).toEqual([ref("notes.md", 2)]);
    expect((await setReviewState(store, [ref("notes.md", 2)], false)).changed).toBe(0);
    expect((await setReviewState(store, [ref("notes.md", 2)], true)).changed).toBe(1);
    expect(await excluded()).toEqual([]);
  });

  it("takes a source path in every added folder, or only in --folder", async () => {
    const { store, root, otherId, excluded, ref } = await setup();
    expect((await setReviewState(store, ["notes.md"], false)).matchedChunks).toBe(3);
    expect(await excluded()).toEqual([ref("notes.md", 1), ref("notes.md", 2), ref("notes.md", 1, otherId)].sort());
    await setReviewState(store, ["notes.md"], true);
    await setReviewState(store, ["notes.md"], false, { folders: [root] });
    expect(await excluded()).toEqual([ref("notes.md", 1), ref("notes.md", 2)]);
  });

  it("takes an absolute source path, a chunk file path, a path relative to cwd, and path#n", async () => {
    const { store, root, excluded, ref } = await setup();
    await setReviewState(store, [path.join(root, "reports/q3.pdf")], false);
    expect(await excluded()).toEqual([1, 2, 3].map((n) => ref("reports/q3.pdf", n)));
    await setReviewState(store, [path.join(root, "_chunks", "reports/q3.pdf.md")], true);
    expect(await excluded()).toEqual([]);
    await setReviewState(store, ["q3.pdf#2"], false, { cwd: path.join(root, "reports") });
    expect(await excluded()).toEqual([]); // q3.pdf#2 means a path inside a folder; reports/q3.pdf#2 names it
    fs.mkdirSync(path.join(root, "reports"), { recursive: true });
    fs.writeFileSync(path.join(root, "reports", "q3.pdf"), "pdf");
    await setReviewState(store, ["q3.pdf"], false, { cwd: path.join(root, "reports") });
    expect(await excluded()).toEqual([1, 2, 3].map((n) => ref("reports/q3.pdf", n)));
    await setReviewState(store, ["reports/q3.pdf#1", "reports/q3.pdf#3"], true);
    expect(await excluded()).toEqual([ref("reports/q3.pdf", 2)]);
  });

  it("takes a folder of sources and globs", async () => {
    const { store, excluded, ref } = await setup();
    const byFolder = await setReviewState(store, ["reports"], false);
    expect(byFolder.targets[0]).toMatchObject({ kind: "directory", files: ["reports/2024/q4.pdf", "reports/q3.pdf"] });
    expect(byFolder.matchedChunks).toBe(4);
    await setReviewState(store, ["reports/"], true);
    const glob = await setReviewState(store, ["reports/*.pdf"], false);
    expect(glob.targets[0]).toMatchObject({ kind: "glob", files: ["reports/q3.pdf"] });
    await setReviewState(store, ["reports/*.pdf"], true);
    await setReviewState(store, ["**/*.docx", "*.pdf"], false);
    expect(await excluded()).toEqual([ref("letters/a.docx", 1), ...[1, 2, 3].map((n) => ref("reports/q3.pdf", n)), ref("reports/2024/q4.pdf", 1)].sort());
  });

  it("reports targets that match nothing and changes nothing for them", async () => {
    const { store, excluded, ref } = await setup();
    const report = await setReviewState(store, ["nope.pdf", "*.xlsx", ref("notes.md", 9), "notes.md#1"], false);
    expect(report.unmatched).toEqual(["nope.pdf", "*.xlsx", ref("notes.md", 9)]);
    expect(report.targets.map((target) => target.kind)).toEqual([null, null, null, "ref"]);
    expect(await excluded()).toHaveLength(2); // notes.md#1 in both folders
  });
});

describe("listChunkStates", () => {
  it("shows per chunk whether it is included, embedded, modified since embedding or new", async () => {
    const { store, folderId, ref } = await setup();
    const [first, second] = await store.getChunks([ref("notes.md", 1), ref("notes.md", 2)]);
    if (!first || !second) throw new Error("seed failed");
    await store.upsertVectors(
      [
        { ref: first.ref, embedHash: embedTextHash(first), embedding: new Float32Array([1, 0]) },
        { ref: second.ref, embedHash: "older text", embedding: new Float32Array([0, 1]) },
      ],
      "fingerprint",
    );
    await setReviewState(store, [ref("reports/q3.pdf", 1)], false);
    const states = await listChunkStates(store, folderId);
    const byRef = new Map(states.map((state) => [state.ref, state]));
    expect(byRef.get(ref("notes.md", 1))).toMatchObject({ included: true, embedState: "embedded", preview: "notes.md chunk 1" });
    expect(byRef.get(ref("notes.md", 2))).toMatchObject({ included: true, embedState: "modified" });
    expect(byRef.get(ref("reports/q3.pdf", 1))).toMatchObject({ included: false, embedState: "new" });
    expect((await listChunkStates(store, folderId, "notes.md")).map((state) => state.ordinal)).toEqual([1, 2]);
  });
});
