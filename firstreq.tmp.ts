import { openChunkpad } from "./src/index.js";
const home = "/tmp/oneoff7/home/100000";
const env = { PATH: process.env.PATH, HOME: home, CHUNKPAD_HOME: home };
const qs = ["library catalog automation", "information retrieval indexing", "citation analysis journals", "user needs survey", "classification scheme subject", "online search systems", "abstracting services cost", "document delivery"];
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const chunkpad = openChunkpad({ env, keywordIndexInMemory: true });
let c = cpu();
await chunkpad.warmSearch();
console.log("warm CPU ms", (cpu() - c).toFixed(0));
const first: string[] = [];
for (let i = 0; i < 8; i++) { c = cpu(); await chunkpad.search(qs[i]!, { mode: "vector" }); first.push((cpu() - c).toFixed(1)); }
const steady: number[] = [];
for (let r = 0; r < 30; r++) for (const q of qs) { c = cpu(); await chunkpad.search(q + " " + r, { mode: "vector" }); steady.push(cpu() - c); }
steady.sort((a, b) => a - b);
console.log("first 8 vector CPU ms", first.join(" "), "steady median", steady[steady.length >> 1]!.toFixed(1));
await chunkpad.close();
