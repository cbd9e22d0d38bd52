import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, REPO_ROOT, writeFile } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { startHubServer, type HubServer } from "./helpers/hub-server.js";

const CROSS_ENCODER_REPO = "chunkpad-test/tiny-cross-encoder";
const CROSS_ENCODER_DIR = path.join(REPO_ROOT, "test", "fixtures", "models", "tiny-cross-encoder");

interface SearchJson {
  notices: Array<{ message: string; nextSteps?: Array<{ action: string }> }>;
  rerank: { model: string; scored: number; candidates: number; budgetMs: number } | null;
  results: Array<{ ref: string; score: number; fusedScore?: number; rerankScore?: number; rerankRank?: number }>;
}

/**
 * `search --rerank` as a user meets it: the cross-encoder (a fixture built like ../shared/models,
 * served by a local hub) is downloaded only with consent, re-scores the top results within the
 * time budget, and --explain / --json show what it did.
 */
describe("chunkpad search --rerank", () => {
  let home: string;
  let hub: HubServer;
  let env: NodeJS.ProcessEnv;
  const search = async (args: string[]) => {
    const result = await runCliInProcess(["search", "heron river marsh", "--mode", "keyword", "--json", ...args], { home, env });
    expect(result.code, result.stderr).toBe(0);
    return { report: json<SearchJson>(result), stderr: result.stderr };
  };

  beforeAll(async () => {
    home = makeTempDir("rerank");
    const folder = path.join(home, "docs");
    const places = ["river", "marsh", "lake", "pond", "delta", "estuary", "creek"];
    places.forEach((place, index) => writeFile(folder, `${place}.md`, `# ${place}\n\nThe heron ${index % 2 === 0 ? "waits" : "fishes"} by the ${place}; river and marsh birds gather near the ${place} at dawn.\n`));
    hub = await startHubServer({ repos: { [CROSS_ENCODER_REPO]: CROSS_ENCODER_DIR } });
    env = { CHUNKPAD_HUB_URL: hub.url };
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    for (const [key, value] of [["search.rerankModel", CROSS_ENCODER_REPO], ["search.rerankDtype", "fp32"]]) {
      expect((await runCliInProcess(["config", "set", key as string, value as string], { home })).code).toBe(0);
    }
  });
  afterAll(async () => {
    await hub.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("never downloads without consent: the search runs unreranked and says how to get the model", async () => {
    const plain = await search([]);
    const { report } = await search(["--rerank"]);
    expect(report.rerank).toBeNull();
    expect(report.notices.map((notice) => notice.message).join(" ")).toMatch(/rerank model .* must be downloaded/s);
    expect(report.notices.flatMap((notice) => notice.nextSteps ?? [])).toContainEqual({ action: "download-model", model: "rerank" });
    expect(report.results.map((hit) => hit.ref)).toEqual(plain.report.results.map((hit) => hit.ref));
    expect(hub.requests).toEqual([]);
  });

  it("downloads with --yes, then re-scores the top results: order by the blend, ranks and fused scores shown", async () => {
    const plain = (await search([])).report;
    const { report, stderr } = await search(["--rerank", "--yes"]);
    expect(stderr).toContain(`Downloading the rerank model ${CROSS_ENCODER_REPO}`);
    expect(hub.requests.some((request) => request.path.endsWith("onnx/model.onnx"))).toBe(true);
    expect(report.rerank).toMatchObject({ scored: plain.results.length, candidates: plain.results.length });
    const scores = report.results.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const hit of report.results) {
      expect(hit.score).toBeCloseTo(0.7 * (hit.rerankScore as number) + 0.3 * (hit.fusedScore as number), 6);
      expect(hit.fusedScore).toBeCloseTo(plain.results.find((before) => before.ref === hit.ref)?.score ?? -1, 6);
    }
    expect(report.results.map((hit) => hit.rerankRank).sort((a, b) => (a as number) - (b as number))).toEqual(report.results.map((_, index) => index + 1));
    // The cross-encoder changed the order the fused scores gave.
    expect(report.results.map((hit) => hit.ref)).not.toEqual(plain.results.map((hit) => hit.ref));

    const requests = hub.requests.length;
    const again = await search(["--rerank"]);
    expect(again.report.rerank?.scored).toBe(plain.results.length);
    expect(hub.requests.length).toBe(requests);
  });

  it("stops after the batch that passes the time budget, and says so", async () => {
    const { report } = await search(["--rerank", "--rerank-budget", "0"]);
    expect(report.rerank).toMatchObject({ scored: 4, candidates: 7, budgetMs: 0 });
    expect(report.notices.map((notice) => notice.message).join(" ")).toMatch(/Reranked the top 4 of 7 results within the 0 ms budget/);
    expect(report.results.slice(4).every((hit) => hit.rerankScore === undefined)).toBe(true);
  });

  it("explains each result's rerank share in words", async () => {
    const result = await runCliInProcess(["search", "heron river marsh", "--mode", "keyword", "--rerank", "--explain"], { home, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/reranked 7 of 7 with chunkpad-test\/tiny-cross-encoder in \d+ ms/);
    expect(result.stdout).toMatch(/rerank: [\d.]+, rank \d \(fused [\d.]+\)/);
  });
});
