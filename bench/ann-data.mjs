// The vectors bench/ann-graph.mjs (HNSW) and bench/ivf.mjs (the inverted file) are measured on, so
// the two compare: N vectors of D dimensions, clustered (2,000 Gaussian centres on the sphere,
// noise 0.8, as bench/vectors.ts) or uniform on the sphere (the worst case), and Q queries drawn
// the same way after them. Seeded: the same arguments give the same vectors.
function rng(seed){ let s=seed>>>0; return ()=>{ s=(Math.imul(s,1664525)+1013904223)>>>0; return s/4294967296; }; }
function gauss(r){ const u=r()||1e-9, v=r(); return Math.sqrt(-2*Math.log(u))*Math.cos(2*Math.PI*v); }
function norm(v){ let s=0; for (const x of v) s+=x*x; s=Math.sqrt(s); for (let i=0;i<v.length;i++) v[i]/=s; return v; }
export function annData(N, D, Q, kind = "clustered", C = 2000, noise = 0.8){
  const r=rng(42);
  const centres=kind === "uniform" ? [] : Array.from({length:C},()=>norm(Float32Array.from({length:D},()=>gauss(r))));
  const draw=kind === "uniform"
    ? (out,off)=>{ for(let j=0;j<D;j++) out[off+j]=gauss(r); norm(out.subarray(off,off+D)); }
    : (out,off)=>{ const c=centres[Math.floor(r()*C)]; for(let j=0;j<D;j++) out[off+j]=c[j]+noise*gauss(r)/Math.sqrt(D); norm(out.subarray(off,off+D)); };
  const data=new Float32Array(N*D); for(let i=0;i<N;i++) draw(data,i*D);
  const queries=new Float32Array(Q*D); for(let i=0;i<Q;i++) draw(queries,i*D);
  return { data, queries };
}
