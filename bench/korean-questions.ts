// Korean questions, as typed: `npx tsx bench/korean-questions.ts`. Adds the documents of
// test/fixtures/korean/questions.json to a fresh home and asks each question with keyword search,
// once through FTS5 (the one-off CLI) and once through the in-memory index (serve, mcp). Prints,
// per path, how many questions find their document first and how many find nothing. Asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openChunkpad } from "../src/index.js";

interface KoreanSet {
  documents: Record<string, string>;
  questions: Array<{ question: string; file: string }>;
}

const set = JSON.parse(fs.readFileSync(path.resolve("test/fixtures/korean/questions.json"), "utf8")) as KoreanSet;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-korean-"));
const folder = path.join(work, "docs");
for (const [file, text] of Object.entries(set.documents)) {
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, file), text);
}
try {
  for (const inMemory of [false, true]) {
    const chunkpad = openChunkpad({ env: { ...process.env, CHUNKPAD_HOME: path.join(work, "home") }, keywordIndexInMemory: inMemory });
    try {
      if (!inMemory) await chunkpad.processFolder(folder);
      let first = 0;
      let empty = 0;
      const misses: string[] = [];
      for (const { question, file } of set.questions) {
        const report = await chunkpad.search(question, { mode: "keyword" });
        if (report.results.length === 0) empty += 1;
        if (report.results[0]?.relativePath === file) first += 1;
        else misses.push(`    ${question} → ${report.results[0]?.relativePath ?? "nothing"} (wanted ${file}; ran ${report.keywordQuery ?? "-"})`);
      }
      console.log(`${inMemory ? "in-memory index (serve, mcp)" : "FTS5 (one-off CLI)"}: right document first ${first}/${set.questions.length}; nothing found ${empty}`);
      for (const miss of misses) console.log(miss);
    } finally {
      await chunkpad.close();
    }
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
