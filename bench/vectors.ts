/**
 * Synthetic embedding vectors for the search benchmarks (bench/ann.ts, bench/search-latency.ts).
 * `clustered`: a mixture of Gaussian centres on the unit sphere, each vector a centre plus noise,
 * the structure real text embeddings have (topics). `uniform`: unit vectors uniform on the
 * sphere, the worst case of any graph index (no neighbourhoods to follow); it says how bad it
 * can get, not how search behaves on text.
 */

/** A seeded PRNG (an LCG), so runs are comparable. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
}

function normalize(values: Float32Array): Float32Array {
  let length = 0;
  for (const value of values) length += value * value;
  length = Math.sqrt(length);
  for (let index = 0; index < values.length; index++) values[index] = (values[index] as number) / length;
  return values;
}

export const CLUSTER_CENTRES = 2000;
export const CLUSTER_NOISE = 0.8;

/** Draws vectors of `dimensions`: clustered (default) or uniform on the sphere. */
export function vectorSampler(dimensions: number, seed: number, kind: "clustered" | "uniform" = "clustered"): () => Float32Array {
  const next = seededRandom(seed);
  // Box-Muller: Gaussian components give directions uniform on the sphere.
  const gauss = () => Math.sqrt(-2 * Math.log(next() || 1e-12)) * Math.cos(2 * Math.PI * next());
  if (kind === "uniform") return () => normalize(Float32Array.from({ length: dimensions }, gauss));
  const centres = Array.from({ length: CLUSTER_CENTRES }, () => normalize(Float32Array.from({ length: dimensions }, gauss)));
  return () => {
    const centre = centres[Math.floor(next() * CLUSTER_CENTRES)] as Float32Array;
    return normalize(Float32Array.from(centre, (value) => value + (CLUSTER_NOISE * gauss()) / Math.sqrt(dimensions)));
  };
}

export const percentile = (values: readonly number[], fraction: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(fraction * values.length))] ?? Number.NaN;
