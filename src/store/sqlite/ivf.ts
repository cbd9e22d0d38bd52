/**
 * An inverted-file index (IVF) of vectors for cosine search, the approximate index's data
 * (ann.ts keeps it in step with SQLite): k-means centroids, each vector in the list of its nearest
 * centroid as int8 codes scaled per vector (largest component ±127; cosine ignores the scale)
 * beside a float16 copy of the unit vector. A search scans the `nprobe` nearest lists exactly in
 * int8 (usearch's SIMD exactSearch), then re-scores its best candidates from the float16 copies.
 * `nprobe` is chosen when the index is built, on the recall@10 it measures for a sample of its
 * own vectors (decision 100): clustered text needs a few lists; uniform vectors need them all,
 * which is then an exact scan of the codes.
 *
 * usearch's binding reads a typed array from the start of its buffer whatever its byteOffset, so
 * every array passed to exactSearch is its own (never a subarray). exactSearch also holds a key
 * and a distance for every (vector, query) pair at once, so many queries go in batches.
 */

export type ExactSearch = (dataset: Float32Array | Int8Array, queries: Float32Array | Int8Array, dimensions: number, count: number, metric: "cos", threads: number) => { keys: BigUint64Array; distances: Float32Array };

/** k-means sample: this many vectors a list (fewer left clusters split across lists at 100k × 768: recall 0.974 at 32). */
const SAMPLE_VECTORS_PER_LIST = 128;
const KMEANS_ITERATIONS = 6;
/** Candidates re-scored from the float16 copies (int8 alone reached 0.986 at 100k × 768). */
export const RESCORED_CANDIDATES = 32;
/** The recall@10 a build's own sample must reach with the nprobe it chooses. */
const TARGET_RECALL = 0.995;
const RECALL_SAMPLE = 200;
/**
 * The nprobe used is twice the one measured: queries are not the index's own vectors (a question's
 * embedding sits apart from passages'), and the test suite's queries, drawn around other centres,
 * needed twice the lists its own vectors did (400 × 16: 0.96 at the measured 4, 0.995 at 8).
 */
const NPROBE_MARGIN = 2;
/** (vector, query) pairs one exactSearch call may hold: 16 bytes each, 64 MB. */
const PAIRS_PER_CALL = 4_000_000;

/** The lists in memory: right after a build, and the file's header and ids once loaded. */
export interface IvfShape {
  dimensions: number;
  centroids: Float32Array;
  /** List c holds positions starts[c] to starts[c + 1]. */
  starts: Uint32Array;
  /** Chunk id at each position. */
  ids: Float64Array;
  nprobe: number;
}

/** Where a search reads a list's codes and a position's float16 copy. */
export interface IvfSource {
  list(list: number): Int8Array;
  half(position: number): Uint16Array;
  /** A list's float16 copies, one vector after another. */
  listHalves(list: number): Uint16Array;
}

export interface IvfBuilt extends IvfShape {
  lists: Int8Array[];
  halves: Uint16Array;
}

export function quantize(vector: Float32Array, into: Int8Array, offset = 0): void {
  let largest = 0;
  for (const value of vector) largest = Math.max(largest, Math.abs(value));
  const scale = largest > 0 ? 127 / largest : 0;
  for (let index = 0; index < vector.length; index++) into[offset + index] = Math.round((vector[index] as number) * scale);
}

function quantizeAll(vectors: Float32Array, dimensions: number): Int8Array {
  const codes = new Int8Array(vectors.length);
  for (let offset = 0; offset < vectors.length; offset += dimensions) quantize(vectors.subarray(offset, offset + dimensions), codes, offset);
  return codes;
}

export function unit(vector: Float32Array): Float32Array {
  let length = 0;
  for (const value of vector) length += value * value;
  length = Math.sqrt(length) || 1;
  return vector.map((value) => value / length);
}

const floatView = new Float32Array(1);
const bitsView = new Uint32Array(floatView.buffer);
export function toHalf(value: number): number {
  floatView[0] = value;
  const bits = bitsView[0] as number;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 112;
  const mantissa = bits & 0x7fffff;
  // Below 2^-14, a subnormal float16, rounded to the nearest step (a carry makes the smallest normal).
  if (exponent <= 0) return exponent < -10 ? sign : sign | (((mantissa | 0x800000) + (1 << (13 - exponent))) >>> (14 - exponent));
  if (exponent >= 31) return sign | 0x7c00;
  return sign | Math.min((exponent << 10) + ((mantissa + 0x1000) >>> 13), 0x7bff);
}
let halfTable: Float32Array | null = null;
/**
 * Every float16 value as a float32, made with integer operations on the bits (a one-off search
 * builds it once: with `2 ** exponent` arithmetic it cost ≈ 5 ms of a 350 ms CLI run).
 */
function halves(): Float32Array {
  if (halfTable) return halfTable;
  halfTable = new Float32Array(65536);
  const bits = new Uint32Array(halfTable.buffer);
  for (let half = 0; half < 65536; half++) {
    const sign = (half & 0x8000) << 16;
    const exponent = (half >>> 10) & 0x1f;
    const mantissa = half & 0x3ff;
    if (exponent === 31) bits[half] = sign | 0x7f800000 | (mantissa << 13);
    else if (exponent !== 0) bits[half] = sign | ((exponent + 112) << 23) | (mantissa << 13);
    else halfTable[half] = (sign ? -1 : 1) * mantissa * 2 ** -24;
  }
  return halfTable;
}

/** A float16 value (its 16 bits) as a number. */
export function fromHalf(half: number): number {
  return halves()[half & 0xffff] as number;
}

export function dotHalf(half: Uint16Array, query: Float32Array): number {
  const table = halves();
  let sum = 0;
  for (let index = 0; index < query.length; index++) sum += (table[half[index] as number] as number) * (query[index] as number);
  return sum;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum += (a[index] as number) * (b[index] as number);
  return sum;
}

/** The `count` nearest rows of `dataset` to each query (row positions, query after query), in batches. */
export function nearestRows(exactSearch: ExactSearch, dataset: Float32Array | Int8Array, queries: Float32Array | Int8Array, dimensions: number, count: number): Uint32Array {
  const rows = dataset.length / dimensions;
  const total = queries.length / dimensions;
  const perCall = Math.max(1, Math.floor(PAIRS_PER_CALL / rows));
  const keys = new Uint32Array(total * count);
  for (let first = 0; first < total; first += perCall) {
    const found = exactSearch(dataset, queries.slice(first * dimensions, Math.min(total, first + perCall) * dimensions), dimensions, count, "cos", 0);
    for (let index = 0; index < found.keys.length; index++) keys[first * count + index] = Number(found.keys[index]);
  }
  return keys;
}

/**
 * Vectors a search scans at least, as a multiple of the candidates asked: nprobe is measured for
 * a top 10, and a search for many more (100 of 400 vectors in 20 lists) would otherwise stop at
 * lists that hold just that many (73 % found). Lists in proportion to the candidates instead cost
 * `serve` 2.5× the CPU at 1M, where search asks for 100–400 and nprobe's lists hold 128,000.
 */
const SCANNED_PER_CANDIDATE = 4;

/** Lists in the order a query probes them, nearest centroid first. */
export function listOrder(exactSearch: ExactSearch, shape: IvfShape, query: Float32Array): number[] {
  const lists = shape.starts.length - 1;
  return Array.from(exactSearch(shape.centroids, query, shape.dimensions, lists, "cos", 1).keys, Number);
}

/**
 * The `count` nearest vectors to `query` (unit length) among the lists, with cosine distances
 * re-scored from the float16 copies: the `nprobe` nearest lists, more while they hold fewer than
 * the candidates asked. `skip` drops positions whose vector was removed or replaced since.
 */
export function searchLists(exactSearch: ExactSearch, shape: IvfShape, source: IvfSource, query: Float32Array, count: number, order: number[], skip: (id: number) => boolean, skipped: number): { hits: Array<{ id: number; distance: number }>; lists: number } {
  const { dimensions, starts, ids } = shape;
  const code = new Int8Array(dimensions);
  quantize(query, code);
  const wanted = Math.max(count, RESCORED_CANDIDATES);
  // The best `wanted` so far in a max-heap: each list's matches come nearest first, so a list
  // stops at its first match no better than the worst kept (sorting every list's matches cost
  // 3–10× the scans themselves at 1M × 64).
  const heapDistances = new Float64Array(wanted);
  const heapPositions = new Float64Array(wanted);
  let kept = 0;
  const swap = (a: number, b: number) => {
    const distance = heapDistances[a] as number;
    heapDistances[a] = heapDistances[b] as number;
    heapDistances[b] = distance;
    const position = heapPositions[a] as number;
    heapPositions[a] = heapPositions[b] as number;
    heapPositions[b] = position;
  };
  const keep = (distance: number, position: number) => {
    if (kept < wanted) {
      let at = kept++;
      heapDistances[at] = distance;
      heapPositions[at] = position;
      while (at > 0 && (heapDistances[(at - 1) >> 1] as number) < (heapDistances[at] as number)) {
        swap(at, (at - 1) >> 1);
        at = (at - 1) >> 1;
      }
      return;
    }
    heapDistances[0] = distance;
    heapPositions[0] = position;
    for (let at = 0; ;) {
      const left = 2 * at + 1;
      const larger = left + 1 < wanted && (heapDistances[left + 1] as number) > (heapDistances[left] as number) ? left + 1 : left;
      if (left >= wanted || (heapDistances[larger] as number) <= (heapDistances[at] as number)) break;
      swap(at, larger);
      at = larger;
    }
  };
  let scanned = 0;
  let rank = 0;
  for (; rank < order.length && (rank < shape.nprobe || scanned < SCANNED_PER_CANDIDATE * (wanted + skipped)); rank++) {
    const list = order[rank] as number;
    const first = starts[list] as number;
    const size = (starts[list + 1] as number) - first;
    if (size === 0) continue;
    scanned += size;
    const matches = exactSearch(source.list(list), code, dimensions, Math.min(size, wanted + skipped), "cos", 1);
    for (let index = 0; index < matches.keys.length; index++) {
      const distance = matches.distances[index] as number;
      if (kept === wanted && distance >= (heapDistances[0] as number)) break;
      const position = first + Number(matches.keys[index]);
      if (!skip(ids[position] as number)) keep(distance, position);
    }
  }
  const hits: Array<{ id: number; distance: number }> = [];
  for (let index = 0; index < kept; index++) {
    const position = heapPositions[index] as number;
    hits.push({ id: ids[position] as number, distance: 1 - dotHalf(source.half(position), query) });
  }
  return { hits, lists: rank };
}

function memorySource(built: IvfBuilt): IvfSource {
  const { dimensions, starts } = built;
  return {
    list: (list) => built.lists[list] as Int8Array,
    half: (position) => built.halves.subarray(position * dimensions, (position + 1) * dimensions),
    listHalves: (list) => built.halves.subarray((starts[list] as number) * dimensions, (starts[list + 1] as number) * dimensions),
  };
}

/**
 * Builds the lists for `vectors` (one after another, `dimensions` each) keyed by `ids`: k-means on
 * a sample (int8 assignments, float means), every vector assigned to its nearest centroid, then
 * nprobe chosen on measured recall.
 */
export function buildIvf(exactSearch: ExactSearch, ids: Float64Array, vectors: Float32Array, dimensions: number): IvfBuilt {
  const count = ids.length;
  const units = new Float32Array(vectors.length);
  for (let offset = 0; offset < vectors.length; offset += dimensions) units.set(unit(vectors.subarray(offset, offset + dimensions)), offset);
  const codes = quantizeAll(units, dimensions);
  const lists = Math.max(1, Math.round(Math.sqrt(count)));
  // The vectors nprobe is chosen on take no part in training: a vector the centroids were fitted
  // to finds its neighbours in its own list more often than a new one would (400 × 16: 0.995
  // against 0.965 at the same nprobe).
  const probeRows = recallRows(count);
  const trainingRows = Uint32Array.from({ length: count }, (_, row) => row).filter((row) => !probeRows.has(row));
  const samples = Math.min(trainingRows.length, lists * SAMPLE_VECTORS_PER_LIST);
  const sample = new Float32Array(samples * dimensions);
  for (let index = 0; index < samples; index++) {
    const row = trainingRows[Math.floor((index * trainingRows.length) / samples)] as number;
    sample.set(units.subarray(row * dimensions, (row + 1) * dimensions), index * dimensions);
  }
  const sampleCodes = quantizeAll(sample, dimensions);
  const centroids = new Float32Array(lists * dimensions);
  for (let list = 0; list < lists; list++) {
    const from = Math.floor((list * samples) / lists) * dimensions;
    centroids.set(sample.subarray(from, from + dimensions), list * dimensions);
  }
  for (let iteration = 0; iteration < KMEANS_ITERATIONS; iteration++) {
    const nearest = nearestRows(exactSearch, quantizeAll(centroids, dimensions), sampleCodes, dimensions, 1);
    const sums = new Float64Array(lists * dimensions);
    const members = new Uint32Array(lists);
    for (let index = 0; index < samples; index++) {
      const list = nearest[index] as number;
      members[list] = (members[list] as number) + 1;
      for (let dimension = 0; dimension < dimensions; dimension++) sums[list * dimensions + dimension] = (sums[list * dimensions + dimension] as number) + (sample[index * dimensions + dimension] as number);
    }
    for (let list = 0; list < lists; list++) {
      // An empty list takes a sample vector (deterministic: the same rows give the same index).
      if (members[list] === 0) {
        const from = ((list * 7919 + iteration) % samples) * dimensions;
        centroids.set(sample.subarray(from, from + dimensions), list * dimensions);
        continue;
      }
      centroids.set(unit(Float32Array.from(sums.subarray(list * dimensions, (list + 1) * dimensions))), list * dimensions);
    }
  }
  const assigned = nearestRows(exactSearch, quantizeAll(centroids, dimensions), codes, dimensions, 1);
  const starts = new Uint32Array(lists + 1);
  for (const list of assigned) starts[list + 1] = (starts[list + 1] as number) + 1;
  for (let list = 0; list < lists; list++) starts[list + 1] = (starts[list + 1] as number) + (starts[list] as number);
  const next = starts.slice(0, lists);
  const sortedIds = new Float64Array(count);
  const sortedCodes = new Int8Array(codes.length);
  const halvesOut = new Uint16Array(codes.length);
  for (let index = 0; index < count; index++) {
    const list = assigned[index] as number;
    const position = next[list] as number;
    next[list] = position + 1;
    sortedIds[position] = ids[index] as number;
    sortedCodes.set(codes.subarray(index * dimensions, (index + 1) * dimensions), position * dimensions);
    for (let dimension = 0; dimension < dimensions; dimension++) halvesOut[position * dimensions + dimension] = toHalf(units[index * dimensions + dimension] as number);
  }
  const built: IvfBuilt = {
    dimensions, centroids, starts, ids: sortedIds, nprobe: lists, halves: halvesOut,
    lists: Array.from({ length: lists }, (_, list) => sortedCodes.slice((starts[list] as number) * dimensions, (starts[list + 1] as number) * dimensions)),
  };
  built.nprobe = chooseNprobe(exactSearch, built, units, ids, [...probeRows]);
  return built;
}

/** Rows whose vectors measure recall: RECALL_SAMPLE spread evenly (none when too few to measure). */
function recallRows(count: number): Set<number> {
  if (count <= 4 * RECALL_SAMPLE) return new Set(count > 44 ? Array.from({ length: Math.floor(count / 4) }, (_, index) => index * 4 + 1) : []);
  return new Set(Array.from({ length: RECALL_SAMPLE }, (_, index) => Math.floor(((index + 0.5) * count) / RECALL_SAMPLE)));
}

/**
 * The smallest nprobe (1, 2, 4, … all lists) at which a sample of the index's own vectors, each
 * left out of its own answer, finds ≥ TARGET_RECALL of its exact top 10.
 */
function chooseNprobe(exactSearch: ExactSearch, built: IvfBuilt, units: Float32Array, ids: Float64Array, rows: number[]): number {
  const { dimensions } = built;
  const lists = built.starts.length - 1;
  const queries = rows.length;
  if (queries === 0) return lists;
  const sample = new Float32Array(queries * dimensions);
  for (const [index, row] of rows.entries()) sample.set(units.subarray(row * dimensions, (row + 1) * dimensions), index * dimensions);
  const truth = nearestRows(exactSearch, units, sample, dimensions, 11);
  const source = memorySource(built);
  const probes: number[] = [];
  for (let nprobe = 1; nprobe < lists; nprobe *= 2) probes.push(nprobe);
  probes.push(lists);
  const hits = new Array<number>(probes.length).fill(0);
  let possible = 0;
  for (const [index, row] of rows.entries()) {
    const self = ids[row] as number;
    const expected = new Set(Array.from(truth.subarray(index * 11, (index + 1) * 11), (position) => ids[position] as number).filter((id) => id !== self).slice(0, 10));
    possible += expected.size;
    const query = sample.slice(index * dimensions, (index + 1) * dimensions);
    const order = listOrder(exactSearch, built, query);
    for (const [probe, nprobe] of probes.entries()) {
      const found = searchLists(exactSearch, { ...built, nprobe }, source, query, 11, order, () => false, 0)
        .hits.sort((a, b) => a.distance - b.distance).map((hit) => hit.id).filter((id) => id !== self).slice(0, 10);
      hits[probe] = (hits[probe] as number) + found.filter((id) => expected.has(id)).length;
    }
  }
  const chosen = probes.findIndex((_, probe) => (hits[probe] as number) >= TARGET_RECALL * possible);
  return chosen < 0 ? lists : Math.min(lists, (probes[chosen] as number) * NPROBE_MARGIN);
}

/**
 * Copies a stored vector (a sqlite-vec float32 blob) into slot `position` of `into`, as bytes:
 * a blob need not be aligned for a Float32Array view. False (nothing copied) when it is missing
 * or not `dimensions` floats long.
 */
export function copyVector(into: Float32Array, position: number, blob: Uint8Array | undefined, dimensions: number): boolean {
  if (blob === undefined || blob.byteLength !== dimensions * 4) return false;
  new Uint8Array(into.buffer, into.byteOffset).set(blob, position * dimensions * 4);
  return true;
}

/** Whether `sorted` (ascending) holds `value`. */
export function sortedIncludes(sorted: Float64Array, value: number): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = sorted[middle] as number;
    if (at === value) return true;
    if (at < value) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

/**
 * Where `wanted` chunk ids sit in `ids` (one pass, the ids marked in a bitmap: ≈ 1 ns a vector,
 * no index kept beside the lists). Ids not in the lists are left out.
 */
export function positionsOf(ids: Float64Array, wanted: readonly number[]): Map<number, number> {
  const positions = new Map<number, number>();
  let largest = 0;
  for (const id of wanted) largest = Math.max(largest, id);
  // Row ids past 2^31 do not fit the bitmap's arithmetic: none found, so the caller asks the rows.
  if (wanted.length === 0 || largest > 0x7fffffff) return positions;
  const marks = new Uint8Array((largest >> 3) + 1);
  for (const id of wanted) marks[id >> 3] = (marks[id >> 3] as number) | (1 << (id & 7));
  for (let position = 0; position < ids.length; position++) {
    const id = ids[position] as number;
    if (id <= largest && ((marks[id >> 3] as number) & (1 << (id & 7))) !== 0) positions.set(id, position);
  }
  return positions;
}

export { memorySource };
