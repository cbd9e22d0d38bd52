/**
 * Step 1 on markdown through the user's path (issue 22): the built CLI `chunkpad add` of a folder
 * of generated markdown files, CPU time of the whole process (workers included) from start to
 * exit, then `chunkpad add` again with nothing changed; each figure printed beside its anchor.
 *
 * The files: CISI abstracts (../shared/ir/cisi) as notes of 2–5 sections, with the things a notes
 * folder has (bullet lists, a link, now and then a fenced code block or a table), 1.5–6 KB each.
 * The fixed anchors are qmd's figures measured on another day's host (/work/shared/MEASUREMENTS.md):
 * `qmd collection add` 9.7 CPU-s per 5,000 files (1.94 ms a file), `qmd update` with nothing
 * changed 0.87 CPU-s per 5,000. `--qmd=path` runs the real qmd here as well (bench/qmd-setup.sh
 * installs 2.8.3 and its launcher): `qmd collection add` of its own copy of the notes in a fresh
 * index and config, then `qmd update` with nothing changed, taking turns with Chunkpad's runs, and
 * prints today's measured ratio beside the anchors (decision 101).
 * Nothing is stubbed: the real walk, parse workers, chunk files (fsync'd) and database.
 * Build first (`npm run build`): `npx tsx bench/step1-markdown.ts [files=1000] [--rounds=N] [--keep] [--bin=path[,path]] [--qmd=path]`.
 * `--bin` runs another build's CLI on the same files (e.g. main's, checked out elsewhere); with
 * several runners and `--rounds`, they take turns (ABC, CBA…) on copies all made before the first
 * run and deleted after the last, and the medians are printed beside the anchors; the load average
 * is printed beside each figure. CPU is user + sys of the process and its children (`/usr/bin/time`).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseSmartDocuments } from "../src/search/smart-format.js";
import { seededRandom } from "./vectors.js";

const FILES = Number(process.argv.slice(2).find((argument) => /^\d+$/.test(argument)) ?? 1000);
const KEEP = process.argv.includes("--keep");
const ROUNDS = Number(process.argv.find((argument) => argument.startsWith("--rounds="))?.slice("--rounds=".length) ?? 1);
const QMD_ADD_CPU_MS_PER_FILE = 9_700 / 5_000;
const QMD_UPDATE_CPU_MS_PER_FILE = 870 / 5_000;
const bins = (process.argv.find((argument) => argument.startsWith("--bin="))?.slice("--bin=".length) ?? "bin/chunkpad.js").split(",").map((bin) => path.resolve(bin));
const qmdOption = process.argv.find((argument) => argument.startsWith("--qmd="))?.slice("--qmd=".length);
const QMD = qmdOption === undefined ? undefined : path.resolve(qmdOption);
const work = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-step1-bench-"));

type Timed = { cpuMs: number; wallMs: number; peakMb: number; stdout: string };
function timed(command: string, args: string[], env: NodeJS.ProcessEnv): Timed {
  const started = performance.now();
  const result = spawnSync("/usr/bin/time", ["-f", "%U %S %M", command, ...args], { env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed:\n${result.stderr}`);
  const [user, system, peakKb] = (result.stderr.trim().split("\n").at(-1) ?? "0 0 0").split(" ").map(Number);
  return { cpuMs: ((user ?? 0) + (system ?? 0)) * 1000, wallMs, peakMb: (peakKb ?? 0) / 1024, stdout: result.stdout };
}
function run(bin: string, home: string, args: string[]): Timed {
  return timed(process.execPath, [bin, ...args], { PATH: process.env.PATH, HOME: work, CHUNKPAD_HOME: home });
}
// qmd keeps its index under XDG_CACHE_HOME/qmd and its collections under XDG_CONFIG_HOME/qmd: both
// inside the run's own home, so every run starts from nothing.
function runQmd(qmd: string, home: string, args: string[]): Timed {
  const env = { PATH: process.env.PATH, HOME: work, XDG_CACHE_HOME: path.join(home, "cache"), XDG_CONFIG_HOME: path.join(home, "config"), NO_COLOR: "1" };
  return timed(qmd, args, env);
}
function makeFolder(folder: string): number {
  const abstracts = parseSmartDocuments(fs.readFileSync(path.resolve("../shared/ir/cisi/CISI.ALL"), "utf8"));
  const random = seededRandom(22);
  const pick = () => abstracts[Math.floor(random() * abstracts.length)] ?? { title: "", text: "" };
  let bytes = 0;
  for (let file = 0; file < FILES; file++) {
    const directory = path.join(folder, `area-${file % 20}`, `topic-${file % 7}`);
    fs.mkdirSync(directory, { recursive: true });
    const lines = [`# ${pick().title || `Note ${file}`}`, "", `Written for project ${file % 13}; see [the index](https://example.org/notes/${file}).`, ""];
    const sections = 2 + Math.floor(random() * 4);
    for (let section = 0; section < sections; section++) {
      const abstract = pick();
      lines.push(`## ${abstract.title.split(/\s+/).slice(0, 6).join(" ") || `Part ${section + 1}`}`, "", abstract.text, "");
      if (random() < 0.5) lines.push(...abstract.text.split(/(?<=\.)\s+/).slice(0, 3).map((sentence) => `- ${sentence}`), "");
      if (random() < 0.15) lines.push("```sh", `chunkpad search "${abstract.title.split(/\s+/).slice(0, 2).join(" ")}"`, "```", "");
      if (random() < 0.1) lines.push("| year | count |", "|---|---|", `| 19${60 + section} | ${file} |`, "");
    }
    const text = lines.join("\n");
    bytes += Buffer.byteLength(text);
    fs.writeFileSync(path.join(directory, `note-${file}.md`), text);
  }
  return bytes;
}

const template = path.join(work, "notes");
const bytes = makeFolder(template);
const load = () => `load ${os.loadavg()[0]?.toFixed(1)}`;
console.log(`step1-markdown: ${FILES.toLocaleString("en")} markdown files, ${(bytes / 1024 / 1024).toFixed(1)} MB (${(bytes / FILES / 1024).toFixed(1)} KB a file), ${os.cpus().length} cores, ${load()}`);
// Every run's copy of the notes is made before the first run and deleted after the last: a copy
// made (and another run's files deleted) just before a run left the kernel recycling inodes during
// it, ±2.5 s of CPU (decision 098).
const runners = [...bins, ...(QMD === undefined ? [] : [QMD])];
const runs = Array.from({ length: ROUNDS }, (_, round) => (round % 2 === 0 ? runners : [...runners].reverse()).map((runner) => ({ runner, round }))).flat();
const folders = runs.map((_, index) => {
  const folder = path.join(work, `run-${index}`, "notes");
  fs.cpSync(template, folder, { recursive: true });
  return folder;
});

const perFile = (ms: number) => ms / FILES;
const verdict = (met: boolean) => (met ? "met" : "NOT met");
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? 0;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const results = new Map<string, { first: number[]; again: number[]; loads: string[] }>(runners.map((runner) => [runner, { first: [], again: [], loads: [] }]));
for (const [index, { runner, round }] of runs.entries()) {
  const home = path.join(work, `run-${index}`, "home");
  const folder = folders[index] as string;
  const loadBefore = load();
  console.log(`\nround ${round + 1}, ${runner} (${loadBefore} at its start)`);
  let first: Timed;
  let again: Timed;
  if (runner === QMD) {
    first = runQmd(runner, home, ["collection", "add", folder, "--name", "notes"]);
    again = runQmd(runner, home, ["update"]);
    const added = /Indexed: (\d+) new/.exec(first.stdout)?.[1];
    const unchanged = /(\d+) unchanged/.exec(again.stdout)?.[1];
    if (Number(added) !== FILES || Number(unchanged) !== FILES) throw new Error(`qmd indexed ${added} and found ${unchanged} unchanged of ${FILES}:\n${first.stdout}\n${again.stdout}`);
    console.log(`  qmd collection add: ${added} new`);
    console.log(`  CPU ${seconds(first.cpuMs)} (${perFile(first.cpuMs).toFixed(2)} ms a file), wall ${seconds(first.wallMs)}, peak RSS ${first.peakMb.toFixed(0)} MB, ${load()}`);
    console.log(`  qmd update (nothing changed): ${unchanged} unchanged; CPU ${seconds(again.cpuMs)}, wall ${seconds(again.wallMs)}`);
  } else {
    first = run(runner, home, ["add", folder, "--json"]);
    const report = JSON.parse(first.stdout) as { processed: unknown[]; failed: unknown[]; chunksWritten: number };
    again = run(runner, home, ["add", folder, "--json"]);
    const second = JSON.parse(again.stdout) as { processed: unknown[]; unchanged: unknown[] };
    console.log(`  chunkpad add (first run): ${report.processed.length} processed, ${report.failed.length} failed, ${report.chunksWritten} chunks`);
    console.log(`  CPU ${seconds(first.cpuMs)} (${perFile(first.cpuMs).toFixed(2)} ms a file), wall ${seconds(first.wallMs)}, peak RSS ${first.peakMb.toFixed(0)} MB, ${load()}`);
    console.log(`  chunkpad add (nothing changed): ${second.unchanged.length} unchanged, ${second.processed.length} processed; CPU ${seconds(again.cpuMs)}, wall ${seconds(again.wallMs)}`);
  }
  results.get(runner)?.first.push(first.cpuMs);
  results.get(runner)?.again.push(again.cpuMs);
  results.get(runner)?.loads.push(loadBefore.slice("load ".length));
}
if (!KEEP) for (const index of runs.keys()) fs.rmSync(path.join(work, `run-${index}`), { recursive: true, force: true });

const measured = QMD === undefined ? undefined : results.get(QMD);
if (QMD !== undefined && measured !== undefined) {
  console.log(`\n${QMD} (qmd, measured here): the median of ${measured.first.length} run${measured.first.length === 1 ? "" : "s"}, load ${measured.loads.join(", ")} at their starts`);
  console.log(`  collection add ${seconds(median(measured.first))} CPU (${measured.first.map(seconds).join(", ")}); fixed anchor 9.7 CPU-s per 5,000: ${(perFile(median(measured.first)) / QMD_ADD_CPU_MS_PER_FILE).toFixed(2)}× the anchor`);
  console.log(`  update, nothing changed ${seconds(median(measured.again))} CPU (${measured.again.map(seconds).join(", ")}); fixed anchor 0.87 CPU-s per 5,000: ${(perFile(median(measured.again)) / QMD_UPDATE_CPU_MS_PER_FILE).toFixed(2)}× the anchor`);
}
for (const bin of bins) {
  const { first, again, loads } = results.get(bin) ?? { first: [], again: [], loads: [] };
  const addRatio = perFile(median(first)) / QMD_ADD_CPU_MS_PER_FILE;
  const updateRatio = perFile(median(again)) / QMD_UPDATE_CPU_MS_PER_FILE;
  const empty = path.join(work, "empty");
  fs.mkdirSync(empty, { recursive: true });
  const home = path.join(work, "empty-home");
  fs.rmSync(home, { recursive: true, force: true });
  run(bin, home, ["add", empty, "--json"]);
  const fixed = run(bin, home, ["add", empty, "--json"]);
  console.log(`\n${bin}: the median of ${first.length} run${first.length === 1 ? "" : "s"}, load ${loads.join(", ")} at their starts`);
  console.log(`  first add ${seconds(median(first))} CPU (${first.map(seconds).join(", ")}); anchor qmd collection add ${QMD_ADD_CPU_MS_PER_FILE.toFixed(2)} ms a file (9.7 CPU-s per 5,000): ${addRatio.toFixed(2)}×   target ≤ 2×: ${verdict(addRatio <= 2)}`);
  if (measured !== undefined) {
    const ratio = median(first) / median(measured.first);
    const byRound = first.map((cpuMs, round) => (cpuMs / (measured.first[round] ?? Number.NaN)).toFixed(2));
    console.log(`    qmd collection add measured here, medians: ${ratio.toFixed(2)}× (round by round ${byRound.join(", ")})   target ≤ 2×: ${verdict(ratio <= 2)}`);
  }
  console.log(`  nothing changed ${seconds(median(again))} CPU (${again.map(seconds).join(", ")}); anchor qmd update ${QMD_UPDATE_CPU_MS_PER_FILE.toFixed(3)} ms a file (0.87 CPU-s per 5,000): ${updateRatio.toFixed(2)}×   target ≤ 1×: ${verdict(updateRatio <= 1)}`);
  if (measured !== undefined) {
    const ratio = median(again) / median(measured.again);
    const byRound = again.map((cpuMs, round) => (cpuMs / (measured.again[round] ?? Number.NaN)).toFixed(2));
    console.log(`    qmd update measured here, medians: ${ratio.toFixed(2)}× (round by round ${byRound.join(", ")})   target ≤ 1×: ${verdict(ratio <= 1)}`);
  }
  console.log(`  fixed cost of a run (add of an empty folder already added): ${fixed.cpuMs.toFixed(0)} ms CPU; beyond it ${((median(again) - fixed.cpuMs) / FILES).toFixed(3)} ms a file`);
}

if (KEEP) console.log(`\nkept: ${work}`);
else fs.rmSync(work, { recursive: true, force: true });
