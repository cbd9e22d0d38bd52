/* global performance, console, process */
// The graph settings of the approximate index (src/store/sqlite/ann.ts), tuned on usearch alone:
// N clustered vectors (2,000 Gaussian centres on the sphere, noise 0.8, 384 dims), exact top-10 by
// brute force for 50 queries, then for each [connectivity, expansion_add, expansion_search,
// candidates (a number or a list), quantization = "f16"] the build time and its CPU per vector
// (usearch's threads included; target ≤ 0.3 ms at 768 dims, issue 22), recall@10 of the graph's own
// top 10 and of the candidates re-scored exactly (target ≥ 0.99), search latency (one thread) and
// the saved file's size (what `serve` maps). Decision 089 has the int8 frontier.
// Optional: dimensions (384) and a batch size, to add the vectors in batches as an embed run writes
// them instead of all at once.
//   node bench/ann-graph.mjs 1000000 '[[16,64,512,64],[24,128,512,64]]' [dims=384] [batch]
// Measured on 2 cores at 1M: M=16/64/512 recall 0.934, build 303 s; M=24/128/512 recall 0.998,
// p50 1.7 ms, build 617 s (the settings in use). Prints figures only.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import usearch from "usearch";
const { Index } = usearch;
import { annData } from "./ann-data.mjs";
const N=+process.argv[2], D=+(process.argv[4] ?? 384), BATCH=+(process.argv[5] ?? 0);
const Q=50; const { data, queries }=annData(N, D, Q);
const truths=[]; for(let q=0;q<Q;q++){ const v=queries.subarray(q*D,(q+1)*D); const sims=new Float32Array(N); for(let i=0;i<N;i++){ let s=0; const o=i*D; for(let j=0;j<D;j++) s+=data[o+j]*v[j]; sims[i]=s; } const idx=Array.from(sims.keys()).sort((a,b)=>sims[b]-sims[a]).slice(0,10); truths.push(new Set(idx.map(i=>BigInt(i+1)))); }
for (const [conn, ea, es, candidates, quantization="f16"] of JSON.parse(process.argv[3])) {
  const idx=new Index({metric:"cos",dimensions:D,quantization,connectivity:conn,expansion_add:ea,expansion_search:es,multi:false});
  const keys=new BigUint64Array(N); for(let i=0;i<N;i++) keys[i]=BigInt(i+1);
  const cpu=process.cpuUsage(); let t=performance.now();
  if (BATCH > 0) for (let i=0;i<N;i+=BATCH) idx.add(keys.subarray(i,Math.min(N,i+BATCH)),data.subarray(i*D,Math.min(N,i+BATCH)*D),2);
  else idx.add(keys,data,2);
  const build=performance.now()-t; const used=process.cpuUsage(cpu); const cpuPerVector=(used.user+used.system)/1000/N;
  const file=path.join(os.tmpdir(),`ann-graph-${process.pid}.usearch`); idx.save(file); const bytes=fs.statSync(file).size; fs.rmSync(file);
  // One build, searched for each number of candidates asked (a number or a list).
  for (const cand of [candidates].flat()) {
    const lat=[]; let hit=0, rescoredHit=0;
    for(let q=0;q<Q;q++){
      const v=queries.subarray(q*D,(q+1)*D); t=performance.now(); const m=idx.search(v,cand,1); lat.push(performance.now()-t);
      const got=Array.from(m.keys).slice(0,10); for(const k of got) if(truths[q].has(k)) hit++;
      // The candidates re-scored exactly (float32 dot products of the stored vectors), as the store does.
      const exact=Array.from(m.keys,(k)=>{ const o=(Number(k)-1)*D; let s=0; for(let j=0;j<D;j++) s+=data[o+j]*v[j]; return [k,s]; }).sort((a,b)=>b[1]-a[1]).slice(0,10);
      for(const [k] of exact) if(truths[q].has(k)) rescoredHit++;
    }
    lat.sort((a,b)=>a-b);
    console.log(`${N}×${D}${BATCH>0?` in batches of ${BATCH}`:""} ${quantization} M=${conn} efa=${ea} ef=${es} cand=${cand}: file ${(bytes/1e6).toFixed(1)} MB, build ${(build/1000).toFixed(1)}s wall, ${cpuPerVector.toFixed(3)} ms CPU a vector (target ≤ 0.3), recall@10 graph ${(hit/(Q*10)).toFixed(3)}, re-scored ${(rescoredHit/(Q*10)).toFixed(3)} (target ≥ 0.99), search p50 ${lat[Q/2].toFixed(2)} ms p95 ${lat[Math.floor(Q*0.95)].toFixed(2)} ms, load ${os.loadavg()[0].toFixed(1)}`);
  }
}
