/* global performance, console, process */
// An inverted-file index (IVF) for the approximate vector index, measured on usearch's exactSearch
// alone, beside bench/ann-graph.mjs (the HNSW graph) on the same vectors (bench/ann-data.mjs):
// k-means centroids trained on a sample, each vector in the list of its nearest centroid, stored as
// int8 codes scaled per vector (largest component ±127) with a float16 copy; a search scans the
// nprobe nearest lists exactly (int8 cosine), then re-scores its best `candidates` from float16.
// Prints the build's CPU a vector (every thread; target ≤ 0.3 ms at 768 dims, issue 22) and its
// parts, the nprobe the build itself would choose (recall on a sample of its own vectors), then
// for each nprobe: recall@10 against exact float32 search of the int8 top 10 and of the re-scored
// candidates (target ≥ 0.99), search CPU p50 / p95 (one thread) and the bytes a search reads.
//   node bench/ivf.mjs N [dims=384] [lists=sqrt(N)] [clustered|uniform] [points a list=128] [iterations=6] [--assign-f32]
// Prints figures only; decision 100 has what was measured.
import os from "node:os";
import usearch from "usearch";
import { annData } from "./ann-data.mjs";
// usearch's binding reads a typed array from the start of its buffer, whatever its byteOffset: a
// subarray is searched as the array it views. Every array passed to it here is its own (slice).
const { exactSearch } = usearch;
const N=+process.argv[2], D=+(process.argv[3] ?? 384), K=+(process.argv[4] || Math.round(Math.sqrt(N))), KIND=process.argv[5] ?? "clustered";
const PER_LIST=+(process.argv[6] || 128), ITERATIONS=+(process.argv[7] || 6), THREADS=2, Q=50;
const { data, queries }=annData(N, D, Q, KIND);
// exactSearch holds a key and a distance for every (vector, query) pair at once (16 bytes each:
// 16 GB for 1M vectors against 1,000 centroids), so many queries go in batches of ≤ 4M pairs.
function nearest(dataset, many, count){
  const rows=dataset.length/D, total=many.length/D, per=Math.max(1, Math.floor(4e6/rows)), keys=new Uint32Array(total*count);
  for(let first=0;first<total;first+=per){ const m=exactSearch(dataset, many.slice(first*D, Math.min(total,first+per)*D), D, count, "cos", THREADS); for(let i=0;i<m.keys.length;i++) keys[first*count+i]=Number(m.keys[i]); }
  return keys;
}
const cpuMs=(since)=>{ const u=process.cpuUsage(since); return (u.user+u.system)/1000; };
const load=()=>os.loadavg()[0].toFixed(1);

// int8 codes, each vector scaled so its largest component is ±127 (cosine ignores the scale).
function quantize(from, count, into=new Int8Array(count*D)){
  for(let i=0;i<count;i++){ const o=i*D; let m=0; for(let j=0;j<D;j++){ const a=Math.abs(from[o+j]); if(a>m) m=a; } const s=m>0?127/m:0; for(let j=0;j<D;j++) into[o+j]=Math.round(from[o+j]*s); }
  return into;
}
const f32=new Float32Array(1), u32=new Uint32Array(f32.buffer);
function toHalf(x){ f32[0]=x; const b=u32[0], sign=(b>>>16)&0x8000, e=((b>>>23)&0xff)-112, m=b&0x7fffff; if(e<=0) return sign|((m|0x800000)>>>(1-e+13)); if(e>=31) return sign|0x7c00; return sign|(e<<10)|((m+0x1000)>>>13); }
const HALF=new Float32Array(65536); for(let h=0;h<65536;h++){ const s=h&0x8000?-1:1, e=(h>>>10)&0x1f, m=h&0x3ff; HALF[h]=e===0?s*m*2**-24:e===31?s*Infinity:s*(1+m/1024)*2**(e-15); }

const started=process.cpuUsage(), wall=performance.now(), parts={};
let t=process.cpuUsage();
// k-means on a sample (spherical: centroids are normalised means), assignments by exactSearch.
// The vectors nprobe is chosen on (SELF, spread evenly) are left out of the k-means sample, as in
// src/store/sqlite/ivf.ts: a vector the centroids were fitted to finds its neighbours in its own
// list more often than a new one (1M × 64: 0.997 at nprobe 2 when they were in it, 0.938 new).
const SELF=200, selfRows=Array.from({length:SELF},(_,i)=>Math.floor((i+0.5)*N/SELF)), selfSet=new Set(selfRows);
const S=Math.min(N-SELF, K*PER_LIST), step=N/S;
const sample=new Float32Array(S*D); for(let i=0;i<S;i++){ let row=Math.floor(i*step); while(selfSet.has(row)) row=(row+1)%N; sample.set(data.subarray(row*D,(row+1)*D), i*D); }
let centroids=new Float32Array(K*D); for(let c=0;c<K;c++) centroids.set(sample.subarray(Math.floor(c*S/K)*D, (Math.floor(c*S/K)+1)*D), c*D);
const sample8=quantize(sample, S);
for(let it=0;it<ITERATIONS;it++){
  // int8 assignments (a third of float32's CPU); the means are taken of the float vectors.
  const near=nearest(quantize(centroids, K), sample8, 1);
  const sums=new Float64Array(K*D), counts=new Uint32Array(K);
  for(let i=0;i<S;i++){ const c=Number(near[i]); counts[c]++; const o=i*D, p=c*D; for(let j=0;j<D;j++) sums[p+j]+=sample[o+j]; }
  for(let c=0;c<K;c++){
    const p=c*D; if(counts[c]===0){ const i=Math.floor(Math.random()*S); centroids.set(sample.subarray(i*D,(i+1)*D), p); continue; }
    let s=0; for(let j=0;j<D;j++) s+=sums[p+j]**2; s=Math.sqrt(s)||1; for(let j=0;j<D;j++) centroids[p+j]=sums[p+j]/s;
  }
}
parts.kmeans=cpuMs(t); t=process.cpuUsage();
const codesInOrder=quantize(data, N);
parts.quantize=cpuMs(t); t=process.cpuUsage();
const assignF32=process.argv.includes("--assign-f32");
const listOf=assignF32 ? nearest(centroids, data, 1) : nearest(quantize(centroids, K), codesInOrder, 1);
parts.assign=cpuMs(t); t=process.cpuUsage();
// Lists contiguous: counting sort by list; codes, float16 copies and ids in list order.
const starts=new Uint32Array(K+1); for(let i=0;i<N;i++) starts[Number(listOf[i])+1]++; for(let c=0;c<K;c++) starts[c+1]+=starts[c];
const fill=starts.slice(0,K), ids=new Uint32Array(N), codes=new Int8Array(N*D), halves=new Uint16Array(N*D), lists=[];
for(let i=0;i<N;i++){ const at=fill[Number(listOf[i])]++; ids[at]=i; codes.set(codesInOrder.subarray(i*D,(i+1)*D), at*D); const o=i*D, h=at*D; for(let j=0;j<D;j++) halves[h+j]=toHalf(data[o+j]); }
for(let c=0;c<K;c++) lists.push(codes.slice(starts[c]*D, starts[c+1]*D));
parts.lists=cpuMs(t); t=process.cpuUsage();

function search(q, nprobe, candidates, q8=quantize(q,1), k=10){
  const probe=exactSearch(centroids, q, D, Math.min(nprobe,K), "cos", 1).keys;
  let found=[]; let scanned=0;
  for(const key of probe){ const c=Number(key), a=starts[c], b=starts[c+1]; if(b===a) continue; scanned+=b-a;
    const m=exactSearch(lists[c], q8, D, Math.min(candidates,b-a), "cos", 1);
    for(let i=0;i<m.keys.length;i++) found.push([a+Number(m.keys[i]), m.distances[i]]); }
  found.sort((x,y)=>x[1]-y[1]); found=found.slice(0,candidates);
  const raw=found.map(([p])=>ids[p]);
  const rescored=found.map(([p])=>{ let s=0; const h=p*D; for(let j=0;j<D;j++) s+=HALF[halves[h+j]]*q[j]; return [p,s]; }).sort((x,y)=>y[1]-x[1]).slice(0,k).map(([p])=>ids[p]);
  return { raw, rescored, scanned, read: scanned*D + found.length*2*D };
}
const PROBES=[]; for(let p=1;p<K;p*=2) PROBES.push(p); PROBES.push(K);
// The build's own choice: recall@10 of the whole search (re-scored) for the held-out vectors (each
// left out of its own answer) against exact float32 search; the smallest nprobe at ≥ 0.995, which
// the store then doubles (NPROBE_MARGIN in ivf.ts: queries are not the index's own vectors).
const selfRecall=new Map(PROBES.map((p)=>[p,0]));
const selfQ=new Float32Array(SELF*D); for(const [i,row] of selfRows.entries()) selfQ.set(data.subarray(row*D,(row+1)*D), i*D);
const selfTruth=nearest(data, selfQ, 11);
for(let i=0;i<SELF;i++){ const self=selfRows[i], truth=new Set(Array.from(selfTruth.slice(i*11,(i+1)*11)).filter((k)=>k!==self).slice(0,10));
  for(const p of PROBES){ const r=search(selfQ.slice(i*D,(i+1)*D), p, 32, undefined, 11).rescored.filter((k)=>k!==self).slice(0,10); selfRecall.set(p, selfRecall.get(p)+r.filter((k)=>truth.has(k)).length/(10*SELF)); } }
const measured=PROBES.find((p)=>selfRecall.get(p)>=0.995) ?? K, chosen=Math.min(K, measured*2);
parts.choose=cpuMs(t);
const build=cpuMs(started), buildWall=performance.now()-wall;
const sizes=[...starts.slice(1)].map((e,c)=>e-starts[c]).sort((a,b)=>a-b);
console.log(`${N}×${D} ${KIND} IVF lists=${K} (sizes p50 ${sizes[K>>1]} max ${sizes[K-1]}), k-means on ${S} × ${ITERATIONS}, assign ${assignF32?"f32":"i8"}: build ${(buildWall/1000).toFixed(1)}s wall, ${(build/N).toFixed(3)} ms CPU a vector (target ≤ 0.3; ${Object.entries(parts).map(([k,v])=>`${k} ${(v/N).toFixed(3)}`).join(", ")}), measured nprobe ${measured}, used ${chosen} (held-out recall ${PROBES.map((p)=>`${p}:${selfRecall.get(p).toFixed(3)}`).join(" ")}), memory codes ${(N*D/1e6).toFixed(1)} MB + float16 ${(N*D*2/1e6).toFixed(1)} MB + ids/centroids ${((N*4+K*D*4)/1e6).toFixed(1)} MB, load ${load()}`);
const truths=Array.from({length:Q},(_,q)=>new Set(Array.from(exactSearch(data, queries.slice(q*D,(q+1)*D), D, 10, "cos", THREADS).keys, Number)));
for(const nprobe of PROBES) for(const candidates of [32,64]){
  let hit=0, rescoredHit=0, read=0; const lat=[];
  for(let q=0;q<Q;q++){ const v=queries.slice(q*D,(q+1)*D); const c=process.cpuUsage(); const r=search(v, nprobe, candidates); lat.push(cpuMs(c)); read+=r.read;
    for(const k of r.raw.slice(0,10)) if(truths[q].has(k)) hit++; for(const k of r.rescored) if(truths[q].has(k)) rescoredHit++; }
  lat.sort((a,b)=>a-b);
  console.log(`  nprobe=${nprobe}${nprobe===chosen?" (used)":""} cand=${candidates}: recall@10 int8 ${(hit/(Q*10)).toFixed(3)}, re-scored ${(rescoredHit/(Q*10)).toFixed(3)} (target ≥ 0.99), search CPU p50 ${lat[Q/2].toFixed(2)} ms p95 ${lat[Math.floor(Q*0.95)].toFixed(2)} ms, read ${(read/Q/1e6).toFixed(2)} MB a search, load ${load()}`);
}
