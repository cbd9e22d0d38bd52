/**
 * IEEE 754 half precision (float16) for the approximate index's copy of each vector (ann.ts):
 * half the bytes of float32, and cosine distances within about 1e-3 of float32's. Node 20 has no
 * Float16Array, so the conversion is done here, by bits.
 */

const floatView = new Float32Array(1);
const bitsView = new Uint32Array(floatView.buffer);

/** One float32 as float16 bits, rounded to nearest even; overflow becomes infinity. */
function toHalf(value: number): number {
  floatView[0] = value;
  const bits = bitsView[0] as number;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa !== 0 ? 0x200 : 0);
  const halfExponent = exponent - 127 + 15;
  if (halfExponent >= 0x1f) return sign | 0x7c00;
  // Below float16's normal range: a multiple of its smallest step (rounding half up is close enough here).
  if (halfExponent <= 0) return sign | Math.round(Math.abs(value) / 2 ** -24);
  const half = sign | (halfExponent << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // Round to nearest, ties to even (a carry into the exponent is the correct result).
  return rest > 0x1000 || (rest === 0x1000 && (half & 1) === 1) ? half + 1 : half;
}

/** Every float16 bit pattern's value, so decoding is one lookup. */
const HALF_VALUES = (() => {
  const values = new Float32Array(65536);
  for (let bits = 0; bits < 65536; bits++) {
    const sign = bits & 0x8000 ? -1 : 1;
    const exponent = (bits >>> 10) & 0x1f;
    const mantissa = bits & 0x3ff;
    values[bits] =
      exponent === 0 ? sign * mantissa * 2 ** -24 : exponent === 0x1f ? (mantissa === 0 ? sign * Infinity : Number.NaN) : sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
  }
  return values;
})();

/** A vector as float16 bytes (little-endian), two a value. */
export function toHalfBlob(vector: Float32Array): Buffer {
  const blob = Buffer.alloc(vector.length * 2);
  for (let index = 0; index < vector.length; index++) {
    const half = toHalf(vector[index] as number);
    blob[index * 2] = half & 0xff;
    blob[index * 2 + 1] = half >>> 8;
  }
  return blob;
}

/** Cosine distance (1 − cosine similarity) between a float32 query and a float16 blob of the same length; 1 (unrelated) when either is zero. */
export function cosineDistanceToHalf(query: Float32Array, blob: Uint8Array): number {
  let dot = 0;
  let queryNorm = 0;
  let norm = 0;
  for (let index = 0; index < query.length; index++) {
    const value = HALF_VALUES[(blob[index * 2] as number) | ((blob[index * 2 + 1] as number) << 8)] as number;
    const q = query[index] as number;
    dot += q * value;
    queryNorm += q * q;
    norm += value * value;
  }
  return queryNorm === 0 || norm === 0 ? 1 : 1 - dot / Math.sqrt(queryNorm * norm);
}
