import fs from "node:fs";
import type { IvfShape, IvfSource } from "./ivf.js";
import { quantize, toHalf } from "./ivf.js";

/**
 * The file: a 32-byte header ("CPIVF001", dimensions, lists, vectors, nprobe), the centroids
 * (float32), list starts (uint32), chunk ids (float64), then every list's int8 codes one after
 * another and the float16 copies in the same order. A search reads its lists' codes and its
 * candidates' copies by position.
 */
const MAGIC = "CPIVF001";
const HEADER_BYTES = 32;
const align8 = (bytes: number) => Math.ceil(bytes / 8) * 8;

interface Layout { centroids: number; starts: number; ids: number; codes: number; halves: number; end: number }
function layout(dimensions: number, lists: number, vectors: number): Layout {
  const centroids = HEADER_BYTES;
  const starts = centroids + lists * dimensions * 4;
  const ids = align8(starts + (lists + 1) * 4);
  const codes = ids + vectors * 8;
  const halves = align8(codes + vectors * dimensions);
  return { centroids, starts, ids, codes, halves, end: halves + vectors * dimensions * 2 };
}

const bytesOf = (array: ArrayBufferView) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);

/**
 * Writes an index: `shape`'s centroids and nprobe, the lists' contents given list by list
 * (codes and copies of the vectors each list holds, in the order of `ids`).
 */
export function writeIvfFile(file: string, shape: IvfShape, listCodes: (list: number) => Int8Array, listHalves: (list: number) => Uint16Array): void {
  const { dimensions, starts, ids } = shape;
  const lists = starts.length - 1;
  const at = layout(dimensions, lists, ids.length);
  const handle = fs.openSync(file, "w", 0o600);
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    header.write(MAGIC, 0, "latin1");
    header.writeUInt32LE(dimensions, 8);
    header.writeUInt32LE(lists, 12);
    header.writeUInt32LE(ids.length, 16);
    header.writeUInt32LE(shape.nprobe, 20);
    fs.writeSync(handle, header, 0, HEADER_BYTES, 0);
    fs.writeSync(handle, bytesOf(shape.centroids), 0, shape.centroids.byteLength, at.centroids);
    fs.writeSync(handle, bytesOf(starts), 0, starts.byteLength, at.starts);
    fs.writeSync(handle, bytesOf(ids), 0, ids.byteLength, at.ids);
    for (let list = 0; list < lists; list++) {
      const codes = listCodes(list);
      const copies = listHalves(list);
      if (codes.length === 0) continue;
      fs.writeSync(handle, bytesOf(codes), 0, codes.byteLength, at.codes + (starts[list] as number) * dimensions);
      fs.writeSync(handle, bytesOf(copies), 0, copies.byteLength, at.halves + (starts[list] as number) * dimensions * 2);
    }
    fs.ftruncateSync(handle, at.end);
  } finally {
    fs.closeSync(handle);
  }
}

function readAt(handle: number, into: ArrayBufferView, position: number): void {
  const bytes = bytesOf(into);
  if (fs.readSync(handle, bytes, 0, bytes.length, position) !== bytes.length) throw new Error("the index file is shorter than its header says");
}

/** The header, centroids, starts and ids of an open file (its codes and copies stay on disk); throws on a foreign or short file. */
export function readIvfShape(handle: number, dimensions: number): IvfShape {
  const header = Buffer.alloc(HEADER_BYTES);
  readAt(handle, header, 0);
  if (header.toString("latin1", 0, 8) !== MAGIC || header.readUInt32LE(8) !== dimensions) throw new Error("not an index of these vectors");
  const lists = header.readUInt32LE(12);
  const vectors = header.readUInt32LE(16);
  const at = layout(dimensions, lists, vectors);
  if (fs.fstatSync(handle).size !== at.end || lists === 0) throw new Error("the index file's size does not match its header");
  const shape: IvfShape = { dimensions, centroids: new Float32Array(lists * dimensions), starts: new Uint32Array(lists + 1), ids: new Float64Array(vectors), nprobe: header.readUInt32LE(20) };
  readAt(handle, shape.centroids, at.centroids);
  readAt(handle, shape.starts, at.starts);
  readAt(handle, shape.ids, at.ids);
  if (shape.starts[lists] !== vectors) throw new Error("the index file's lists do not add up");
  return shape;
}

/** Reads lists and copies from an open file (the caller closes `handle`). */
export function fileSource(handle: number, shape: IvfShape): IvfSource {
  const at = layout(shape.dimensions, shape.starts.length - 1, shape.ids.length);
  const { dimensions, starts } = shape;
  return {
    list(list) {
      const codes = new Int8Array(((starts[list + 1] as number) - (starts[list] as number)) * dimensions);
      readAt(handle, codes, at.codes + (starts[list] as number) * dimensions);
      return codes;
    },
    half(position) {
      const copy = new Uint16Array(dimensions);
      readAt(handle, copy, at.halves + position * dimensions * 2);
      return copy;
    },
    listHalves(list) {
      const copies = new Uint16Array(((starts[list + 1] as number) - (starts[list] as number)) * dimensions);
      readAt(handle, copies, at.halves + (starts[list] as number) * dimensions * 2);
      return copies;
    },
  };
}

/**
 * Writes `current`'s lists with the changes merged in, one list at a time: its vectors read from
 * `source` less the `removed` chunk ids, then the `added` vectors (unit length) of that list. The
 * centroids and nprobe stay; returns the shape written.
 */
export function writeMergedIvfFile(file: string, current: IvfShape, source: IvfSource, removed: ReadonlySet<number>, added: ReadonlyMap<number, { list: number; vector: Float32Array }>): IvfShape {
  const { dimensions, starts } = current;
  const lists = starts.length - 1;
  const addedByList = Array.from({ length: lists }, () => [] as Array<[number, Float32Array]>);
  for (const [id, entry] of added) addedByList[entry.list]?.push([id, entry.vector]);
  const nextStarts = new Uint32Array(lists + 1);
  const nextIds: number[] = [];
  for (let list = 0; list < lists; list++) {
    for (let position = starts[list] as number; position < (starts[list + 1] as number); position++) if (!removed.has(current.ids[position] as number)) nextIds.push(current.ids[position] as number);
    for (const [id] of addedByList[list] as Array<[number, Float32Array]>) nextIds.push(id);
    nextStarts[list + 1] = nextIds.length;
  }
  const next: IvfShape = { dimensions, centroids: current.centroids, starts: nextStarts, ids: Float64Array.from(nextIds), nprobe: current.nprobe };
  let merged: { list: number; codes: Int8Array; halves: Uint16Array } | null = null;
  const mergedList = (list: number) => {
    if (merged?.list === list) return merged;
    const count = (nextStarts[list + 1] as number) - (nextStarts[list] as number);
    const codes = new Int8Array(count * dimensions);
    const halves = new Uint16Array(count * dimensions);
    const first = starts[list] as number;
    const oldCodes = source.list(list);
    const oldHalves = source.listHalves(list);
    let at = 0;
    for (let position = first; position < (starts[list + 1] as number); position++) {
      if (removed.has(current.ids[position] as number)) continue;
      codes.set(oldCodes.subarray((position - first) * dimensions, (position - first + 1) * dimensions), at * dimensions);
      halves.set(oldHalves.subarray((position - first) * dimensions, (position - first + 1) * dimensions), at * dimensions);
      at += 1;
    }
    for (const [, vector] of addedByList[list] as Array<[number, Float32Array]>) {
      quantize(vector, codes, at * dimensions);
      for (let dimension = 0; dimension < dimensions; dimension++) halves[at * dimensions + dimension] = toHalf(vector[dimension] as number);
      at += 1;
    }
    merged = { list, codes, halves };
    return merged;
  };
  writeIvfFile(file, next, (list) => mergedList(list).codes, (list) => mergedList(list).halves);
  return next;
}
