import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { embedTextHash } from "../../core/chunk-ref.js";
import { openMainStore, type MainStore } from "../../store/main-store.js";
import { setReviewState } from "./review.js";
import { listChunkStates } from "./review-states.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function setup() {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-review-"));
  const store: MainStore = openMainStore({ path: path.join(directory, "chunkpad.db") });
  cleanups.push(() => {
    store.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });
  const root = path.join(directory, "docs");
  const folderId = store.upsertFolder(root, path.join(root, "_chunks")).id;
  const otherRoot = path.join(directory, "other");
  const otherId = store.upsertFolder(otherRoot, path.join(otherRoot, "_chunks")).id;
  const add = (folder: string, relativePath: string, count: number) =>
    store.syncDocument({
      folderId: folder,
      relativePath,
      title: relativePath,
      documentType: "md",
      fileSize: 1,
      pageCount: null,
      chunks: Array.from({ length: count }, (_, index) => ({ content: `${relativePath} chunk ${index + 1}`, meta: {} })),
    });
  add(folderId, "notes.md", 2);
  add(folderId, "reports/q3.pdf", 3);
  add(folderId, "reports/2024/q4.pdf", 1);
  add(folderId, "letters/a.docx", 1);
  add(otherId, "notes.md", 1);
  const excluded = () => store.listExcludedRefs().sort();
  return { store, root, folderId, otherId, excluded, ref: (file: string, n: number, folder = folderId) => `${folder}:${file}#${n}` };
}

describe("include / exclude", () => {
  it("excludes one chunk by ref and includes it again, counting only real changes", () => {
    const { store, excluded, ref } = setup();
    const first = setReviewState(store, [ref("notes.md", 2)], false);
    expect(first).toMatchObject({ matchedChunks: 1, changed: 1, unmatched: [] });
    expect(first.targets[0]).toMatchObject({ kind: "ref", chunkCount: 1 });
    expect(excluded()).toEqual([ref("notes.md", 2)]);
    expect(setReviewState(store, [ref("notes.md", 2)], false).changed).toBe(0);
    expect(setReviewState(store, [ref("notes.md", 2)], true).changed).toBe(1);
    expect(excluded()).toEqual([]);
  });

  it("takes a source path in every added folder, or only in --folder", () => {
    const { store, root, otherId, excluded, ref } = setup();
    expect(setReviewState(store, ["notes.md"], false).matchedChunks).toBe(3);
    expect(excluded()).toEqual([ref("notes.md", 1), ref("notes.md", 2), ref("notes.md", 1, otherId)].sort());
    setReviewState(store, ["notes.md"], true);
    setReviewState(store, ["notes.md"], false, { folders: [root] });
    expect(excluded()).toEqual([ref("notes.md", 1), ref("notes.md", 2)]);
  });

  it("takes an absolute source path, a chunk file path, a path relative to cwd, and path#n", () => {
    const { store, root, excluded, ref } = setup();
    setReviewState(store, [path.join(root, "reports/q3.pdf")], false);
    expect(excluded()).toEqual([1, 2, 3].map((n) => ref("reports/q3.pdf", n)));
    setReviewState(store, [path.join(root, "_chunks", "reports/q3.pdf.md")], true);
    expect(excluded()).toEqual([]);
    setReviewState(store, ["q3.pdf#2"], false, { cwd: path.join(root, "reports") });
    expect(excluded()).toEqual([]); // q3.pdf#2 means a path inside a folder; reports/q3.pdf#2 names it
    fs.mkdirSync(path.join(root, "reports"), { recursive: true });
    fs.writeFileSync(path.join(root, "reports", "q3.pdf"), "pdf");
    setReviewState(store, ["q3.pdf"], false, { cwd: path.join(root, "reports") });
    expect(excluded()).toEqual([1, 2, 3].map((n) => ref("reports/q3.pdf", n)));
    setReviewState(store, ["reports/q3.pdf#1", "reports/q3.pdf#3"], true);
    expect(excluded()).toEqual([ref("reports/q3.pdf", 2)]);
  });

  it("takes a folder of sources and globs", () => {
    const { store, excluded, ref } = setup();
    const byFolder = setReviewState(store, ["reports"], false);
    expect(byFolder.targets[0]).toMatchObject({ kind: "directory", files: ["reports/2024/q4.pdf", "reports/q3.pdf"] });
    expect(byFolder.matchedChunks).toBe(4);
    setReviewState(store, ["reports/"], true);
    const glob = setReviewState(store, ["reports/*.pdf"], false);
    expect(glob.targets[0]).toMatchObject({ kind: "glob", files: ["reports/q3.pdf"] });
    setReviewState(store, ["reports/*.pdf"], true);
    setReviewState(store, ["**/*.docx", "*.pdf"], false);
    expect(excluded()).toEqual([ref("letters/a.docx", 1), ...[1, 2, 3].map((n) => ref("reports/q3.pdf", n)), ref("reports/2024/q4.pdf", 1)].sort());
  });

  it("reports targets that match nothing and changes nothing for them", () => {
    const { store, excluded, ref } = setup();
    const report = setReviewState(store, ["nope.pdf", "*.xlsx", ref("notes.md", 9), "notes.md#1"], false);
    expect(report.unmatched).toEqual(["nope.pdf", "*.xlsx", ref("notes.md", 9)]);
    expect(report.targets.map((target) => target.kind)).toEqual([null, null, null, "ref"]);
    expect(excluded()).toHaveLength(2); // notes.md#1 in both folders
  });
});

describe("listChunkStates", () => {
  it("shows per chunk whether it is included, embedded, modified since embedding or new", () => {
    const { store, folderId, ref } = setup();
    const [first, second] = store.getChunks([ref("notes.md", 1), ref("notes.md", 2)]);
    if (!first || !second) throw new Error("seed failed");
    store.upsertVectors(
      [
        { ref: first.ref, embedHash: embedTextHash(first), embedding: new Float32Array([1, 0]) },
        { ref: second.ref, embedHash: "older text", embedding: new Float32Array([0, 1]) },
      ],
      "fingerprint",
    );
    setReviewState(store, [ref("reports/q3.pdf", 1)], false);
    const states = listChunkStates(store, folderId);
    const byRef = new Map(states.map((state) => [state.ref, state]));
    expect(byRef.get(ref("notes.md", 1))).toMatchObject({ included: true, embedState: "embedded", preview: "notes.md chunk 1" });
    expect(byRef.get(ref("notes.md", 2))).toMatchObject({ included: true, embedState: "modified" });
    expect(byRef.get(ref("reports/q3.pdf", 1))).toMatchObject({ included: false, embedState: "new" });
    expect(listChunkStates(store, folderId, "notes.md").map((state) => state.ordinal)).toEqual([1, 2]);
  });
});
