import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { SqliteDatabase } from "./database.js";
import { writeTransaction } from "./database.js";
import type { ExactSearch, IvfBuilt, IvfShape, IvfSource } from "./ivf.js";
import { buildIvf, copyVector, dot, dotHalf, listOrder, memorySource, nearestRows, positionsOf, searchLists, sortedIncludes, unit } from "./ivf.js";
import { fileSource, readIvfShape, writeMergedIvfFile } from "./ivf-file.js";
import { fingerprint, readSidecarFile, removeFilesStartingWith, SIDECAR_FORMAT, writeSidecarFile } from "./ivf-sidecar.js";

/**
 * The approximate nearest-neighbour index beside the database: an inverted file (ivf.ts: k-means
 * lists of int8 codes with float16 copies, searched with usearch's exactSearch) over the vectors in
 * vec_chunks, keyed by chunk row id, in `{db}.ivf-<id>` files named by a small sidecar
 * (`{db}.ivf.json`). Used for vector search once there are `threshold` vectors (brute force is
 * already fast below that). It replaced an HNSW graph (decision 100): a build costs ≈ 0.2 ms CPU
 * a 768-dim vector (the graph 1–3 ms), and a search reads only the lists it scans.
 *
 * SQLite stays the truth. While an index file exists, every vector change also writes a row to
 * `ann_log` in the same transaction; an index knows the last log row it has applied and replays
 * the rest (add = remove then add, so a replay twice is harmless) before it answers: a removed or
 * replaced vector of the file is skipped, a new one kept in memory in its nearest centroid's list
 * until the next save merges it in. When more vectors were added than the lists were built on,
 * the index is built again from the rows. A crash anywhere leaves an index at worst behind, never
 * wrong; a missing, damaged, foreign or older (HNSW) file is rebuilt from the rows.
 */

interface UsearchModule {
  exactSearch: ExactSearch;
}

/**
 * Changes since the centroids were made, as a fraction of the vectors they were made from, past
 * which a save builds the lists again rather than merge: new vectors far from every centroid
 * (another topic) are found less well (100 of 400 vectors moved to other centres: recall 0.885).
 */
const REBUILD_AFTER_CHANGED_FRACTION = 0.2;
/** Log rows applied but not yet saved that make a process save the index when it closes. */
const SAVE_AFTER_CHANGES = 1;
export interface AnnOptions {
  db: SqliteDatabase;
  /** The database file; null for an in-memory database (the index then lives in memory only). */
  databasePath: string | null;
  /** Vectors below which search stays exact. */
  threshold: number;
  /** Replaces `require("usearch")` (tests simulate a missing native module). */
  load?: () => UsearchModule;
}

export interface AnnIndex {
  /** Why the index cannot be used at all (usearch did not load), or null. */
  readonly unavailableReason: string | null;
  /** Candidate chunk ids nearest first with their cosine distances, or null when search should stay exact (few vectors, no usearch). */
  candidates(embedding: Float32Array, dimensions: number, count: number): Array<{ id: number; distance: number }> | null;
  /**
   * Cosine distances of these chunks' vectors from the index's float16 copies (a hybrid search
   * scoring its keyword hits), for those it holds; null when no index is loaded (ask the rows).
   */
  distances(embedding: Float32Array, dimensions: number, chunkIds: readonly number[]): Map<number, number> | null;
  /** Records vector changes (call inside the write transaction that makes them). */
  logAdd(chunkIds: readonly number[]): void;
  logRemove(chunkIds: readonly number[]): void;
  logReset(): void;
  /** Brings the index file up to date when this process changed vectors (at close). */
  persist(): void;
  /**
   * Adds the vectors written since the index last looked (an embed run calls it after each batch,
   * so its end holds no build); null when no index is kept (no usearch, or fewer vectors than the
   * threshold). `added`: log rows just applied.
   */
  catchUp(): { vectors: number; added: number } | null;
  /** Deletes the index files (a removed folder, reset): the next search rebuilds from the rows. */
  discard(): void;
  /** Closes the index file this process reads its lists from (the store closes; call after persist). */
  release(): void;
  /** Vectors in the loaded index (0 when none is loaded). */
  loadedSize(): number;
  /** Times this process built the index from the rows (a missing, damaged or outdated file). */
  builds(): number;
  /** Vectors below which search stays exact. */
  readonly threshold: number;
}

const ACTIVE_KEY = "ann.active";
const PRUNED_KEY = "ann.prunedThrough";

export function createAnnIndex(options: AnnOptions): AnnIndex {
  const { db } = options;
  let module: UsearchModule | null = null;
  let unavailableReason: string | null = null;
  try {
    module = options.load ? options.load() : (createRequire(import.meta.url)("usearch") as UsearchModule);
  } catch (error) {
    unavailableReason = `the approximate vector index (usearch) could not be loaded (${error instanceof Error ? error.message : String(error)}); vector search stays exact`;
  }
  const databaseName = options.databasePath === null ? null : path.basename(options.databasePath);
  const directory = options.databasePath === null ? null : path.dirname(options.databasePath);
  const sidecarPath = options.databasePath === null ? null : `${options.databasePath}.ivf.json`;
  /** The lists: built in memory (`built`), or a saved file read by position (`file`). */
  let shape: IvfShape | null = null;
  let built: IvfBuilt | null = null;
  /**
   * The saved file the lists are read from, open while they are: another process's save deletes
   * it (and may have pruned no log row this one still needs), so it is never opened by name again.
   */
  let file: number | null = null;
  /** Chunk ids of the lists whose vectors were removed or replaced since (skipped by a search). */
  const removed = new Set<number>();
  /** Vectors added since the lists were made, each in its nearest centroid's list. */
  const added = new Map<number, { list: number; vector: Float32Array }>();
  /**
   * Lists' codes read from the file and kept, from a process's second search on: reading them
   * per search cost 2.8–3.3 ms CPU of 4–6.5 at 1M × 64 (64–128 lists of 64 KB from the page
   * cache), so `serve` keeps what it reads (at most the codes, a byte a dimension) while a one-off
   * search reads only its lists.
   */
  let heldLists: Array<Int8Array | undefined> = [];
  let searches = 0;
  /** An embed run outgrew the lists: they are built again by the next search or save, not by catchUp. */
  let deferred = false;
  /** The lists' ids sorted, made when a change first needs to know whether an id is in them. */
  let sortedIds: Float64Array | null = null;
  let appliedSeq = 0;
  let unsavedChanges = 0;
  let builds = 0;
  let trainedOn = 0;
  /** Vectors added or removed since the centroids were made, before the current changes. */
  let changedBefore = 0;
  let wroteVectors = false;

  const meta = (key: string) => db.prepare<[string], string>("SELECT value FROM meta WHERE key = ?").pluck().get(key) ?? null;
  const setMeta = (key: string, value: string) => db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(key, value);
  const active = () => meta(ACTIVE_KEY) === "1";
  const log = (chunkIds: readonly number[], op: "add" | "remove") => {
    wroteVectors = true;
    if (!active()) return;
    const insert = db.prepare("INSERT INTO ann_log (chunk_id, op) VALUES (?, ?)");
    for (const id of chunkIds) insert.run(id, op);
  };
  const exactSearch = () => (module as UsearchModule).exactSearch;
  const size = () => (shape === null ? 0 : shape.ids.length - removed.size + added.size);

  const closeFile = () => {
    if (file !== null) fs.closeSync(file);
    file = null;
  };
  const forget = () => {
    shape = null;
    built = null;
    closeFile();
    removed.clear();
    added.clear();
    sortedIds = null;
    heldLists = [];
  };

  const readSidecar = () => (sidecarPath === null ? null : readSidecarFile(sidecarPath));

  /** Every vector from the rows, read in one transaction together with the log position it matches. */
  const rebuild = (dimensions: number) => {
    const snapshot = writeTransaction(db, () => {
      setMeta(ACTIVE_KEY, "1");
      // Every change logged so far is in the rows read here, pruned ones too: the highest
      // number ever given to a log row (the log may be empty after a save pruned it).
      const seq = db.prepare<[], number | null>("SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'ann_log'), 0), COALESCE((SELECT MAX(seq) FROM ann_log), 0))").pluck().get() ?? 0;
      const rows = db.prepare<[], { id: number; embedding: Uint8Array }>("SELECT c.id AS id, v.embedding AS embedding FROM vec_chunks v JOIN chunks c ON c.ref = v.chunk_ref").all();
      return { seq, rows };
    });
    builds += 1;
    const ids: number[] = [];
    const vectors = new Float32Array(snapshot.rows.length * dimensions);
    for (const row of snapshot.rows) if (copyVector(vectors, ids.length, row.embedding, dimensions)) ids.push(row.id);
    forget();
    built = buildIvf(exactSearch(), Float64Array.from(ids), vectors.subarray(0, ids.length * dimensions), dimensions);
    shape = built;
    trainedOn = ids.length;
    changedBefore = 0;
    appliedSeq = snapshot.seq;
    unsavedChanges = Math.max(1, snapshot.rows.length);
  };

  const loadFromFile = (dimensions: number): boolean => {
    const sidecar = readSidecar();
    if (sidecar === null || directory === null || sidecar.dimensions !== dimensions || !active()) return false;
    if (sidecar.appliedSeq < Number(meta(PRUNED_KEY) ?? 0)) return false;
    let handle: number | null = null;
    try {
      handle = fs.openSync(path.join(directory, sidecar.file), "r");
      const found = fingerprint(handle);
      if (found.bytes !== sidecar.bytes || found.sample !== sidecar.sample) throw new Error("not the file the sidecar names");
      // Only the centroids, list starts and ids are read; a search reads the lists it scans.
      const loaded = readIvfShape(handle, dimensions);
      forget();
      shape = loaded;
      file = handle;
      trainedOn = sidecar.trainedOn;
      changedBefore = sidecar.changed;
      appliedSeq = sidecar.appliedSeq;
      unsavedChanges = 0;
      return true;
    } catch {
      if (handle !== null) fs.closeSync(handle);
      return false;
    }
  };

  const inLists = (id: number): boolean => {
    if (shape === null) return false;
    sortedIds ??= shape.ids.slice().sort();
    return sortedIncludes(sortedIds, id);
  };

  /**
   * Applies the log rows after appliedSeq. "stale" when some were pruned before this index saw
   * them, or when the lists should be built again (more vectors added than they were built on,
   * or a reset). Each chunk's vector is read as it is now, not as it was when logged, so the end
   * state is that of applying the rows in order.
   */
  const replay = (): "applied" | "stale" => {
    if (shape === null || appliedSeq < Number(meta(PRUNED_KEY) ?? 0)) return "stale";
    const rows = db.prepare<[number], { seq: number; chunk_id: number; op: string }>("SELECT seq, chunk_id, op FROM ann_log WHERE seq > ? ORDER BY seq").all(appliedSeq);
    if (rows.length === 0) return "applied";
    if (rows.some((row) => row.op === "reset")) return "stale";
    const current = shape;
    const dimensions = current.dimensions;
    const chunkIds = [...new Set(rows.map((row) => row.chunk_id))];
    const vector = db.prepare<[number], Uint8Array>("SELECT v.embedding FROM chunks c JOIN vec_chunks v ON v.chunk_ref = c.ref WHERE c.id = ?").pluck();
    const ids: number[] = [];
    const vectors = new Float32Array(chunkIds.length * dimensions);
    for (const id of chunkIds) {
      if (!added.delete(id) && inLists(id)) removed.add(id);
      if (copyVector(vectors, ids.length, vector.get(id), dimensions)) ids.push(id);
    }
    if (added.size + ids.length > Math.max(current.ids.length, options.threshold)) return "stale";
    const units = new Float32Array(ids.length * dimensions);
    for (let index = 0; index < ids.length; index++) units.set(unit(vectors.subarray(index * dimensions, (index + 1) * dimensions)), index * dimensions);
    const lists = ids.length === 0 ? new Uint32Array(0) : nearestRows(exactSearch(), current.centroids, units, dimensions, 1);
    for (const [index, id] of ids.entries()) added.set(id, { list: lists[index] as number, vector: units.slice(index * dimensions, (index + 1) * dimensions) });
    appliedSeq = (rows[rows.length - 1] as { seq: number }).seq;
    unsavedChanges += rows.length;
    return "applied";
  };

  const upToDate = (dimensions: number) => {
    deferred = false;
    if (shape !== null && shape.dimensions === dimensions && replay() === "applied") return;
    forget();
    if (loadFromFile(dimensions) && replay() === "applied") return;
    rebuild(dimensions);
  };

  /** Runs `work` with the lists' source (the open file, or memory). */
  const withSource = <T>(work: (source: IvfSource) => T, keep = false): T => {
    if (built !== null || file === null) return work(memorySource(built as IvfBuilt));
    const source = fileSource(file, shape as IvfShape);
    if (!keep) return work(source);
    return work({ ...source, list: (list) => (heldLists[list] ??= source.list(list)) });
  };

  /** Removes files of the HNSW index this one replaced (decision 100), once. */
  const removeEarlierFormat = () => {
    if (directory !== null && databaseName !== null) removeFilesStartingWith(directory, `${databaseName}.usearch`);
  };

  /** Writes the lists with the changes merged in: removed vectors left out, added ones in their lists. */
  const save = (dimensionsNow: number) => {
    if (shape === null || directory === null || sidecarPath === null || databaseName === null || unsavedChanges < SAVE_AFTER_CHANGES) return;
    if (changedBefore + removed.size + added.size > REBUILD_AFTER_CHANGED_FRACTION * trainedOn) rebuild(dimensionsNow);
    const current = shape as IvfShape;
    const name = `${databaseName}.ivf-${randomBytes(6).toString("hex")}`;
    const target = path.join(directory, name);
    const next = withSource((source) => writeMergedIvfFile(target, current, source, removed, added));
    const previous = readSidecar();
    const changed = changedBefore + removed.size + added.size;
    const written = fs.openSync(target, "r");
    try {
      writeSidecarFile(sidecarPath, { format: SIDECAR_FORMAT, file: name, appliedSeq, dimensions: current.dimensions, vectors: next.ids.length, nprobe: next.nprobe, trainedOn, changed, ...fingerprint(written) });
    } catch (error) {
      fs.closeSync(written);
      throw error;
    }
    if (previous && previous.file !== name) fs.rmSync(path.join(directory, previous.file), { force: true });
    removeEarlierFormat();
    // Rows this file includes are no longer needed by anyone who can load it.
    writeTransaction(db, () => {
      db.prepare("DELETE FROM ann_log WHERE seq <= ?").run(appliedSeq);
      if (appliedSeq > Number(meta(PRUNED_KEY) ?? 0)) setMeta(PRUNED_KEY, String(appliedSeq));
    });
    forget();
    shape = next;
    file = written;
    changedBefore = changed;
    unsavedChanges = 0;
  };

  const vectorRows = () => db.prepare<[], number>("SELECT COUNT(*) FROM embedded_chunk_refs").pluck().get() ?? 0;

  return {
    unavailableReason,
    threshold: options.threshold,
    candidates(embedding, dimensions, count) {
      if (module === null || !Number.isFinite(options.threshold)) return null;
      // Counting a million rows costs more than the search: without an index yet, count once;
      // with one, the index (brought up to date from the log) knows how many vectors there are.
      if (shape === null && !active() && vectorRows() < options.threshold) return null;
      upToDate(dimensions);
      const current = shape as IvfShape | null;
      if (current === null || size() < options.threshold) return null;
      const query = unit(embedding);
      const order = listOrder(exactSearch(), current, query);
      searches += 1;
      const { hits: found, lists } = withSource((source) => searchLists(exactSearch(), current, source, query, count, order, (id) => removed.has(id), removed.size), searches > 1);
      // Vectors added since, in the lists the search scanned (a few at most: they are merged at the next save).
      const probed = new Set(order.slice(0, lists));
      for (const [id, entry] of added) if (probed.has(entry.list)) found.push({ id, distance: 1 - dot(entry.vector, query) });
      return found.sort((a, b) => a.distance - b.distance).slice(0, count);
    },
    distances(embedding, dimensions, chunkIds) {
      if (module === null || shape === null || shape.dimensions !== dimensions) return null;
      upToDate(dimensions);
      const current = shape as IvfShape;
      const query = unit(embedding);
      const [found, inFile] = [new Map<number, number>(), [] as number[]];
      for (const id of chunkIds) {
        const entry = added.get(id);
        if (entry !== undefined) found.set(id, 1 - dot(entry.vector, query));
        else if (!removed.has(id)) inFile.push(id);
      }
      withSource((source) => positionsOf(current.ids, inFile).forEach((position, id) => found.set(id, 1 - dotHalf(source.half(position), query))));
      return found;
    },
    logAdd: (chunkIds) => log(chunkIds, "add"),
    logRemove: (chunkIds) => log(chunkIds, "remove"),
    logReset() {
      wroteVectors = true;
      if (active()) db.prepare("INSERT INTO ann_log (chunk_id, op) VALUES (0, 'reset')").run();
    },
    catchUp() {
      if (module === null || !db.open || deferred || (shape === null && !wroteVectors)) return null;
      const dimensions = vectorDimensionsOf(db);
      if (dimensions === null) return null;
      // Counted only until an index exists (then the index knows its size).
      if (shape === null && !active() && vectorRows() < options.threshold) return null;
      const before = unsavedChanges;
      const built = builds;
      if (shape === null || shape.dimensions !== dimensions) {
        forget();
        if (!loadFromFile(dimensions)) rebuild(dimensions);
      }
      // Lists to build again (the vectors outgrew them): left to the next search or the run's
      // end, which builds once from the rows, instead of once each time the vectors double
      // (0.641 ms CPU a 768-dim vector for a 100k embed run with the builds here).
      if (replay() === "stale") {
        forget();
        deferred = true;
        return null;
      }
      return { vectors: size(), added: builds !== built ? size() : unsavedChanges - before };
    },
    persist() {
      if (module === null || sidecarPath === null || !db.open) return;
      try {
        if (shape === null && !wroteVectors) return;
        const dimensions = vectorDimensionsOf(db);
        if (dimensions === null) return;
        if (!active() && vectorRows() < options.threshold) return;
        upToDate(dimensions);
        save(dimensions);
      } catch {
        // The index is a cache: a failure to write it costs the next search a rebuild, nothing more.
      }
    },
    discard() {
      forget();
      deferred = false;
      appliedSeq = 0;
      unsavedChanges = 0;
      writeTransaction(db, () => {
        db.prepare("DELETE FROM meta WHERE key IN (?, ?)").run(ACTIVE_KEY, PRUNED_KEY);
        db.exec("DELETE FROM ann_log");
      });
      if (directory === null || databaseName === null || sidecarPath === null) return;
      fs.rmSync(sidecarPath, { force: true });
      // The current file, files of saves that lost a race, and the earlier format's.
      removeFilesStartingWith(directory, `${databaseName}.ivf-`);
      removeEarlierFormat();
    },
    release: () => forget(),
    loadedSize: () => size(),
    builds: () => builds,
  };
}

function vectorDimensionsOf(db: SqliteDatabase): number | null {
  const sql = db.prepare<[], string>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'vec_chunks'").pluck().get();
  const match = sql === undefined ? null : /embedding\s+float\[(\d+)\]/i.exec(sql);
  return match?.[1] === undefined ? null : Number(match[1]);
}
