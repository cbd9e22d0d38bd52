import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { SqliteDatabase } from "./database.js";
import { writeTransaction } from "./database.js";

/**
 * The approximate nearest-neighbour index beside the database: an HNSW graph (usearch) over
 * the vectors in vec_chunks, keyed by chunk row id, in `{db}.usearch-<id>` files named by a
 * small sidecar (`{db}.usearch.json`). Used for vector search once there are `threshold`
 * vectors (brute force is already fast below that).
 *
 * SQLite stays the truth. While an index file exists, every vector change also writes a row to
 * `ann_log` in the same transaction; an index knows the last log row it has applied and replays
 * the rest (add = remove then add, so a replay twice is harmless) before it answers. A crash
 * anywhere leaves an index that is at worst behind, never wrong; a missing, damaged or foreign
 * file is rebuilt from the rows. Vectors are stored as float16 in the graph (half the memory of
 * float32; distances within about 1e-3 of exact); re-scoring candidates from SQLite instead cost
 * more than the whole graph search (sqlite-vec point lookups, bench/ann.ts).
 */

interface UsearchIndex {
  add(keys: BigUint64Array, vectors: Float32Array, threads?: number): void;
  remove(keys: BigUint64Array): unknown;
  search(vector: Float32Array, k: number, threads: number): { keys: BigUint64Array; distances: Float32Array };
  size(): number;
  save(path: string): void;
  load(path: string): void;
  /** Memory-maps the file: nothing read up front, but the index cannot change (add or remove throw). */
  view(path: string): void;
}

interface UsearchModule {
  Index: new (config: { metric: string; dimensions: number; quantization: string; connectivity: number; expansion_add: number; expansion_search: number; multi: boolean }) => UsearchIndex;
}

/** Graph settings measured in bench/ann.ts and docs/decisions/026 (recall@10 ≥ 0.99 on clustered vectors). */
const CONNECTIVITY = 24;
const EXPANSION_ADD = 128;
/**
 * How wide a search looks, chosen when an index is made or loaded (usearch fixes it then): 512
 * keeps recall@10 at 0.998 with a million vectors but costs 8.6 ms at 100k × 768, where 128
 * finds the same (0.999) in 2.6 ms.
 */
const EXPANSION_SEARCH_LARGE = 512;
const EXPANSION_SEARCH_SMALL = 128;
const LARGE_INDEX_VECTORS = 200_000;
/** Log rows applied but not yet saved that make a process save the index when it closes. */
const SAVE_AFTER_CHANGES = 1;

interface Sidecar {
  file: string;
  appliedSeq: number;
  dimensions: number;
  /** The file's size and a hash of its first and last 64 KB: a damaged or swapped file is rebuilt, never loaded. */
  bytes: number;
  sample: string;
  /** Vectors in the file (sets the search width without counting rows); absent in files saved before it was recorded. */
  vectors?: number;
}

const SAMPLE_BYTES = 64 * 1024;

/** Size and sampled hash of a file, cheap even for a large index. */
function fingerprintFile(file: string): { bytes: number; sample: string } {
  const handle = fs.openSync(file, "r");
  try {
    const bytes = fs.fstatSync(handle).size;
    const hash = createHash("sha256");
    const buffer = Buffer.alloc(Math.min(SAMPLE_BYTES, bytes));
    fs.readSync(handle, buffer, 0, buffer.length, 0);
    hash.update(buffer);
    fs.readSync(handle, buffer, 0, buffer.length, Math.max(0, bytes - buffer.length));
    hash.update(buffer);
    return { bytes, sample: hash.digest("hex") };
  } finally {
    fs.closeSync(handle);
  }
}

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
  /** Vectors in the loaded index (0 when none is loaded). */
  loadedSize(): number;
  /** Times this process built the index from the rows (a missing, damaged or outdated file). */
  builds(): number;
  /** Vectors below which search stays exact. */
  readonly threshold: number;
}

const ACTIVE_KEY = "ann.active";
const PRUNED_KEY = "ann.prunedThrough";

/**
 * Copies a stored vector (a sqlite-vec float32 blob) into slot `position` of `into`, as bytes:
 * a blob need not be aligned for a Float32Array view. False (nothing copied) when it is missing
 * or not `dimensions` floats long.
 */
function copyVector(into: Float32Array, position: number, blob: Uint8Array | undefined, dimensions: number): boolean {
  if (blob === undefined || blob.byteLength !== dimensions * 4) return false;
  new Uint8Array(into.buffer, into.byteOffset).set(blob, position * dimensions * 4);
  return true;
}

export function createAnnIndex(options: AnnOptions): AnnIndex {
  const { db } = options;
  let module: UsearchModule | null = null;
  let unavailableReason: string | null = null;
  try {
    module = options.load ? options.load() : (createRequire(import.meta.url)("usearch") as UsearchModule);
  } catch (error) {
    unavailableReason = `the approximate vector index (usearch) could not be loaded (${error instanceof Error ? error.message : String(error)}); vector search stays exact`;
  }
  const sidecarPath = options.databasePath === null ? null : `${options.databasePath}.usearch.json`;
  let index: UsearchIndex | null = null;
  let indexDimensions = 0;
  let appliedSeq = 0;
  let unsavedChanges = 0;
  let builds = 0;
  let wroteVectors = false;
  /** The index is the saved file memory-mapped (usearch view): read-only, so it is loaded for real before any change. */
  let viewed: string | null = null;

  const meta = (key: string) => db.prepare<[string], string>("SELECT value FROM meta WHERE key = ?").pluck().get(key) ?? null;
  const setMeta = (key: string, value: string) => db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(key, value);
  const active = () => meta(ACTIVE_KEY) === "1";
  const log = (chunkIds: readonly number[], op: "add" | "remove") => {
    wroteVectors = true;
    if (!active()) return;
    const insert = db.prepare("INSERT INTO ann_log (chunk_id, op) VALUES (?, ?)");
    for (const id of chunkIds) insert.run(id, op);
  };

  const newIndex = (dimensions: number, vectors: number): UsearchIndex =>
    new (module as UsearchModule).Index({
      metric: "cos", dimensions, quantization: "f16", connectivity: CONNECTIVITY, expansion_add: EXPANSION_ADD,
      expansion_search: vectors >= LARGE_INDEX_VECTORS ? EXPANSION_SEARCH_LARGE : EXPANSION_SEARCH_SMALL, multi: false,
    });

  const readSidecar = (): Sidecar | null => {
    if (sidecarPath === null) return null;
    try {
      const value = JSON.parse(fs.readFileSync(sidecarPath, "utf8")) as Partial<Sidecar>;
      if (typeof value.file !== "string" || typeof value.appliedSeq !== "number" || typeof value.dimensions !== "number" || typeof value.bytes !== "number" || typeof value.sample !== "string") return null;
      if (value.file.includes("/") || value.file.includes("\\")) return null;
      return value as Sidecar;
    } catch {
      return null;
    }
  };

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
    const fresh = newIndex(dimensions, snapshot.rows.length);
    const keys: bigint[] = [];
    const vectors = new Float32Array(snapshot.rows.length * dimensions);
    for (const row of snapshot.rows) if (copyVector(vectors, keys.length, row.embedding, dimensions)) keys.push(BigInt(row.id));
    if (keys.length > 0) fresh.add(BigUint64Array.from(keys), vectors.subarray(0, keys.length * dimensions));
    index = fresh;
    viewed = null;
    indexDimensions = dimensions;
    appliedSeq = snapshot.seq;
    unsavedChanges = Math.max(1, snapshot.rows.length);
  };

  const loadFromFile = (dimensions: number): boolean => {
    const sidecar = readSidecar();
    if (sidecar === null || sidecarPath === null || sidecar.dimensions !== dimensions || !active()) return false;
    if (sidecar.appliedSeq < Number(meta(PRUNED_KEY) ?? 0)) return false;
    try {
      const file = path.join(path.dirname(sidecarPath), sidecar.file);
      const found = fingerprintFile(file);
      if (found.bytes !== sidecar.bytes || found.sample !== sidecar.sample) return false;
      // Memory-mapped, not read: a one-off search touches only the graph nodes it visits (a
      // 175 MB file at 100k × 768 took 187 ms to read). Changes to apply first need a loaded copy.
      const loaded = newIndex(dimensions, sidecar.vectors ?? vectorRows());
      const pending = logAfter(sidecar.appliedSeq);
      if (pending) loaded.load(file);
      else loaded.view(file);
      viewed = pending ? null : file;
      index = loaded;
      indexDimensions = dimensions;
      appliedSeq = sidecar.appliedSeq;
      unsavedChanges = 0;
      return true;
    } catch {
      return false;
    }
  };

  /**
   * Applies the log rows after appliedSeq; false when some were pruned before this index saw
   * them. All at once, as an embed run leaves thousands: every chunk they name is removed, then
   * those with a vector now are added in one call (on every core). Each chunk's vector is read as
   * it is now, not as it was when logged, so the end state is that of applying the rows in order.
   */
  const replay = (): boolean => {
    if (appliedSeq < Number(meta(PRUNED_KEY) ?? 0)) return false;
    const rows = db.prepare<[number], { seq: number; chunk_id: number; op: string }>("SELECT seq, chunk_id, op FROM ann_log WHERE seq > ? ORDER BY seq").all(appliedSeq);
    if (rows.length === 0) return true;
    // Another process changed vectors since the file was mapped: a changeable copy from the same file.
    if (viewed !== null) {
      const copy = newIndex(indexDimensions, (index as UsearchIndex).size());
      try {
        copy.load(viewed);
      } catch {
        // The file was replaced meanwhile (another process saved): start from the current one.
        return false;
      }
      index = copy;
      viewed = null;
    }
    const lastReset = rows.findLastIndex((row) => row.op === "reset");
    if (lastReset >= 0) index = newIndex(indexDimensions, 0);
    const chunkIds = [...new Set(rows.slice(lastReset + 1).map((row) => row.chunk_id))];
    if (chunkIds.length > 0) {
      const current = index as UsearchIndex;
      current.remove(BigUint64Array.from(chunkIds, (id) => BigInt(id)));
      const vector = db.prepare<[number], Uint8Array>("SELECT v.embedding FROM chunks c JOIN vec_chunks v ON v.chunk_ref = c.ref WHERE c.id = ?").pluck();
      const keys: bigint[] = [];
      const vectors = new Float32Array(chunkIds.length * indexDimensions);
      for (const id of chunkIds) {
        if (copyVector(vectors, keys.length, vector.get(id), indexDimensions)) keys.push(BigInt(id));
      }
      if (keys.length > 0) current.add(BigUint64Array.from(keys), vectors.subarray(0, keys.length * indexDimensions));
    }
    appliedSeq = (rows[rows.length - 1] as { seq: number }).seq;
    unsavedChanges += rows.length;
    return true;
  };

  const upToDate = (dimensions: number) => {
    if (index !== null && indexDimensions === dimensions && replay()) return;
    index = null;
    viewed = null;
    if (loadFromFile(dimensions) && replay()) return;
    rebuild(dimensions);
  };

  const save = () => {
    if (index === null || sidecarPath === null || unsavedChanges < SAVE_AFTER_CHANGES) return;
    const directory = path.dirname(sidecarPath);
    const previous = readSidecar();
    const file = `${path.basename(options.databasePath as string)}.usearch-${randomBytes(6).toString("hex")}`;
    index.save(path.join(directory, file));
    const sidecar: Sidecar = { file, appliedSeq, dimensions: indexDimensions, vectors: index.size(), ...fingerprintFile(path.join(directory, file)) };
    const temporary = `${sidecarPath}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, JSON.stringify(sidecar), { mode: 0o600 });
    fs.renameSync(temporary, sidecarPath);
    fs.chmodSync(path.join(directory, file), 0o600);
    if (previous && previous.file !== file) fs.rmSync(path.join(directory, previous.file), { force: true });
    // Rows this file includes are no longer needed by anyone who can load it.
    writeTransaction(db, () => {
      db.prepare("DELETE FROM ann_log WHERE seq <= ?").run(appliedSeq);
      if (appliedSeq > Number(meta(PRUNED_KEY) ?? 0)) setMeta(PRUNED_KEY, String(appliedSeq));
    });
    unsavedChanges = 0;
  };

  const vectorRows = () => db.prepare<[], number>("SELECT COUNT(*) FROM embedded_chunk_refs").pluck().get() ?? 0;
  const logAfter = (seq: number) => db.prepare<[number], number>("SELECT EXISTS (SELECT 1 FROM ann_log WHERE seq > ?)").pluck().get(seq) === 1;

  return {
    unavailableReason,
    threshold: options.threshold,
    candidates(embedding, dimensions, count) {
      if (module === null || !Number.isFinite(options.threshold)) return null;
      // Counting a million rows costs more than the search: without an index yet, count once;
      // with one, the index (brought up to date from the log) knows how many vectors there are.
      if (index === null && !active() && vectorRows() < options.threshold) return null;
      upToDate(dimensions);
      const current = index as UsearchIndex;
      const size = current.size();
      if (size < options.threshold) return null;
      const found = current.search(embedding, Math.min(count, size), 1);
      return Array.from(found.keys, (key, position) => ({ id: Number(key), distance: found.distances[position] as number }));
    },
    logAdd: (chunkIds) => log(chunkIds, "add"),
    logRemove: (chunkIds) => log(chunkIds, "remove"),
    logReset() {
      wroteVectors = true;
      if (active()) db.prepare("INSERT INTO ann_log (chunk_id, op) VALUES (0, 'reset')").run();
    },
    catchUp() {
      if (module === null || !db.open || (index === null && !wroteVectors)) return null;
      const dimensions = vectorDimensionsOf(db);
      if (dimensions === null) return null;
      // Counted only until an index exists (then the index knows its size).
      if (index === null && !active() && vectorRows() < options.threshold) return null;
      const before = unsavedChanges;
      const built = builds;
      upToDate(dimensions);
      const current = index as UsearchIndex | null;
      return current === null ? null : { vectors: current.size(), added: builds !== built ? current.size() : unsavedChanges - before };
    },
    persist() {
      if (module === null || sidecarPath === null || !db.open) return;
      try {
        if (index === null && !wroteVectors) return;
        const dimensions = vectorDimensionsOf(db);
        if (dimensions === null) return;
        if (!active() && vectorRows() < options.threshold) return;
        upToDate(dimensions);
        save();
      } catch {
        // The index is a cache: a failure to write it costs the next search a rebuild, nothing more.
      }
    },
    discard() {
      index = null;
      viewed = null;
      appliedSeq = 0;
      unsavedChanges = 0;
      writeTransaction(db, () => {
        db.prepare("DELETE FROM meta WHERE key IN (?, ?)").run(ACTIVE_KEY, PRUNED_KEY);
        db.exec("DELETE FROM ann_log");
      });
      if (sidecarPath === null) return;
      const sidecar = readSidecar();
      if (sidecar) fs.rmSync(path.join(path.dirname(sidecarPath), sidecar.file), { force: true });
      fs.rmSync(sidecarPath, { force: true });
      // Files of saves that lost a race, if any.
      const prefix = `${path.basename(options.databasePath as string)}.usearch-`;
      for (const name of fs.readdirSync(path.dirname(sidecarPath))) if (name.startsWith(prefix)) fs.rmSync(path.join(path.dirname(sidecarPath), name), { force: true });
    },
    loadedSize: () => index?.size() ?? 0,
    builds: () => builds,
  };
}

function vectorDimensionsOf(db: SqliteDatabase): number | null {
  const sql = db.prepare<[], string>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'vec_chunks'").pluck().get();
  const match = sql === undefined ? null : /embedding\s+float\[(\d+)\]/i.exec(sql);
  return match?.[1] === undefined ? null : Number(match[1]);
}
