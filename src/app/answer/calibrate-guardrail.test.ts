import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import type { CliIo } from "../../cli/shared/io.js";
import { openChunkpad } from "../chunkpad.js";
import { floorFor } from "./calibrate-guardrail.js";

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A folder of ten notes, each answering one question; queries and qrels name them. */
function workspace() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-calibrate-"));
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
  const folder = path.join(root, "notes");
  fs.mkdirSync(folder);
  const facts = [
    ["lima", "What is the capital of Peru?", "Lima is the capital of Peru and its largest city."],
    ["heron", "Where does the grey heron nest?", "The grey heron nests in tall trees near rivers."],
    ["budget", "How large was the garden budget?", "The garden budget was four hundred pounds this year."],
    ["eel", "How far do eels migrate?", "Eels migrate thousands of kilometres to the Sargasso Sea."],
    ["fern", "Do ferns need shade?", "Most ferns grow best in shade and damp soil."],
    ["tide", "What causes the tides?", "The pull of the moon causes the tides."],
    ["bread", "How long should bread dough rise?", "Bread dough should rise for about an hour."],
    ["violin", "How many strings has a violin?", "A violin has four strings tuned in fifths."],
    ["granite", "How does granite form?", "Granite forms when magma cools slowly underground."],
    // Answered in other words: few of the question's words are in its note.
    ["owl", "Which birds hunt by night using hearing?", "Owls locate prey in darkness by sound."],
  ] as const;
  for (const [name, , text] of facts) fs.writeFileSync(path.join(folder, `${name}.md`), `# ${name}\n\n${text}\n`);
  fs.writeFileSync(path.join(root, "queries.jsonl"), facts.map(([name, question]) => JSON.stringify({ _id: `q-${name}`, text: question })).join("\n"));
  fs.writeFileSync(path.join(root, "qrels.tsv"), facts.map(([name]) => `q-${name}\t${name}\t1`).join("\n"));
  return { root, folder, home: path.join(root, "home") };
}

describe("floorFor", () => {
  it("is the highest two-decimal floor below which at most the given share of measures fall", () => {
    const measures = [0.9, 0.2, 0.55, 0.7, 0.8, 0.61, 1, 1, 0.95, 0.85];
    expect(floorFor(measures, 0.1)).toBe(0.55);
    expect(floorFor(measures, 0)).toBe(0.2);
    expect(floorFor(measures, 0.25)).toBe(0.61);
    expect(floorFor([0.333], 0)).toBe(0.33);
  });
});

describe("calibrating the guardrail on the user's own questions", () => {
  it("finds the floor that refuses at most the chosen share of answerable questions, and `eval --calibrate` writes it", async () => {
    const { root, folder, home } = workspace();
    const chunkpad = openChunkpad({ env: { ...process.env, CHUNKPAD_HOME: home } });
    cleanups.push(() => chunkpad.close());
    await chunkpad.processFolder(folder);
    const calibration = await chunkpad.calibrateGuardrail({ queriesPath: path.join(root, "queries.jsonl"), qrelsPath: path.join(root, "qrels.tsv"), wrongfulRate: 0.1 });
    expect(calibration).toMatchObject({ questions: 10, wrongfulRate: 0.1 });
    expect(calibration.refusedAtFloor).toBeLessThanOrEqual(1);
    expect(calibration.floor).toBeGreaterThan(0.3);
    // One more answerable question would be refused a step above it.
    const stricter = await chunkpad.calibrateGuardrail({ queriesPath: path.join(root, "queries.jsonl"), qrelsPath: path.join(root, "qrels.tsv"), wrongfulRate: 0 });
    expect(stricter.refusedAtFloor).toBe(0);
    expect(stricter.floor).toBeLessThan(calibration.floor);

    let stdout = "";
    const sink = new PassThrough();
    sink.on("data", (data: Buffer) => (stdout += data.toString()));
    const io = { stdout: sink, stderr: new PassThrough(), stdin: process.stdin, env: { ...process.env, CHUNKPAD_HOME: home } } as unknown as CliIo;
    const code = await main(["eval", "--calibrate", "--queries", path.join(root, "queries.jsonl"), "--qrels", path.join(root, "qrels.tsv"), "--wrongful-rate", "0.1"], io);
    expect(code).toBe(0);
    expect(stdout).toContain(`generation.minSimilarity is now ${calibration.floor.toFixed(2)} in the config.`);
    const reopened = openChunkpad({ env: { ...process.env, CHUNKPAD_HOME: home } });
    cleanups.push(() => reopened.close());
    expect(reopened.config.generation.minSimilarity).toBe(calibration.floor);
  });

  it("says what it needs when no question has a judged document", async () => {
    const { root, home } = workspace();
    fs.writeFileSync(path.join(root, "qrels.tsv"), "nobody\tnothing\t1\n");
    const chunkpad = openChunkpad({ env: { ...process.env, CHUNKPAD_HOME: home } });
    cleanups.push(() => chunkpad.close());
    await expect(chunkpad.calibrateGuardrail({ queriesPath: path.join(root, "queries.jsonl"), qrelsPath: path.join(root, "qrels.tsv") })).rejects.toThrow(/needs questions your documents answer/);
    await expect(chunkpad.calibrateGuardrail({ queriesPath: path.join(root, "queries.jsonl"), qrelsPath: path.join(root, "qrels.tsv"), wrongfulRate: 0.9 })).rejects.toThrow(/from 0 to 0.5/);
  });
});
