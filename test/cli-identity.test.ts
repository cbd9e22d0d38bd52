import fs from "node:fs";
import path from "node:path";
import { openSqlite } from "../src/store/sqlite/driver.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, ON_POSTGRES, writeFile } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { openHomeStore } from "./helpers/store.js";
import { startHubServer, TINY_BERT_REPO, type HubServer } from "./helpers/hub-server.js";
import { startAnthropicServer } from "./helpers/llm-servers/anthropic-server.js";
import type { ScriptedServer } from "./helpers/llm-servers/scripted-server.js";

/**
 * Review decisions follow the text, not the position (docs/decisions/008): inserted paragraphs,
 * hand edits that split or merge chunks, vanished text, the folder's default for new text, and
 * vectors keyed by the exact embedded text (a retitled document re-embeds).
 */

interface ChunkState {
  ref: string;
  relativePath: string;
  ordinal: number;
  included: boolean;
  embedState: string;
  preview: string;
}

const WELCOME = "## Welcome\n\nWelcome to the office. The team meets every Monday morning in the large room.";
const SALARIES = "## Salaries\n\nAlice earns 91000 euros a year and leads the design team. Bob earns 87000 euros a year and runs support.\n\nCarol earns 120000 euros a year as head of sales. Dave earns 64000 euros a year as a trainee engineer.";
const HOLIDAYS = "## Holidays\n\nEveryone gets twenty five days of paid leave plus the public holidays of the region.";
const PARKING = "## Parking\n\nThe garage opens at seven and closes at nine in the evening on weekdays.";
const INSERTED = "This handbook was rewritten in spring after the move to the new building near the station.\n\nQuestions about it go to the office manager, who keeps the printed copy at the front desk.";
const SALARY_FIGURES = ["91000", "87000", "120000", "64000"];

const handbook = (...sections: string[]) => `# Staff handbook\n\n${sections.join("\n\n")}\n`;
const hasSalary = (text: string) => SALARY_FIGURES.some((figure) => text.includes(figure));

describe("review decisions follow the text", () => {
  const home = makeTempDir("identity-home");
  const folder = makeTempDir("identity-docs");
  let hub: HubServer;
  let anthropic: ScriptedServer;
  let env: NodeJS.ProcessEnv;
  const cli = (args: string[]) => runCliInProcess(args, { home, env });
  const states = async (target = folder): Promise<ChunkState[]> => {
    const result = await cli(["chunks", target, "--chunks", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    return json<ChunkState[]>(result);
  };
  /** Every chunk's text, whether it is included and whether it has a vector, from the store (either backend). */
  const chunkTexts = async () => {
    const store = await openHomeStore(home);
    try {
      const embedded = new Set((await store.embedState()).filter((row) => row.embeddedHash !== null).map((row) => row.ref));
      const chunks = (await store.listChunks()).sort((a, b) => a.documentId.localeCompare(b.documentId) || a.ordinal - b.ordinal);
      return chunks.map((chunk) => ({ ref: chunk.ref, content: chunk.content, included: chunk.included ? 1 : 0, embedded: embedded.has(chunk.ref) ? 1 : 0 }));
    } finally {
      await store.close();
    }
  };
  const add = async (...args: string[]) => {
    const result = await cli(["add", folder, "--chunk-size", "40", "--overlap", "0", ...args]);
    expect(result.code, result.stderr).toBe(0);
  };

  beforeAll(async () => {
    [hub, anthropic] = await Promise.all([startHubServer(), startAnthropicServer()]);
    env = { CHUNKPAD_HUB_URL: hub.url, ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: "sk-ant-test-0123456789" };
    writeFile(folder, "handbook.md", handbook(WELCOME, SALARIES, HOLIDAYS, PARKING));
    writeFile(folder, "garden.md", "# Garden\n\nTomatoes need full sun and steady watering in the summer months.\n");
    await add();
  });
  afterAll(async () => {
    await Promise.all([hub.close(), anthropic.close()]);
  });

  it("keeps the salary chunks excluded after paragraphs are inserted above them; embed and ask never see them", async () => {
    const before = (await states()).filter((state) => state.relativePath === "handbook.md");
    const salaryRefs = before.filter((state) => /Salaries|earns/.test(state.preview)).map((state) => state.ref);
    expect(salaryRefs).toHaveLength(2);
    const excluded = await cli(["exclude", ...salaryRefs]);
    expect(excluded.code, excluded.stderr).toBe(0);

    writeFile(folder, "handbook.md", handbook(INSERTED, WELCOME, SALARIES, HOLIDAYS, PARKING));
    await add();

    const chunks = await chunkTexts();
    expect(chunks.filter((chunk) => hasSalary(chunk.content)).length).toBeGreaterThan(0);
    for (const chunk of chunks) expect({ content: chunk.content, included: chunk.included }).toEqual({ content: chunk.content, included: hasSalary(chunk.content) ? 0 : 1 });

    const embedded = await cli(["embed", "--model", TINY_BERT_REPO, "--yes"]);
    expect(embedded.code, embedded.stderr).toBe(0);
    for (const chunk of await chunkTexts()) expect({ content: chunk.content, embedded: chunk.embedded }).toEqual({ content: chunk.content, embedded: hasSalary(chunk.content) ? 0 : 1 });

    anthropic.reset();
    anthropic.script({ reply: "text", deltas: ["I cannot see salaries [C1]."] }, { reply: "text", deltas: ["Nothing [C1]."] });
    for (const question of ["How much does Alice earn a year in euros?", "salaries Alice Bob Carol Dave euros"]) {
      const asked = await cli(["ask", "--json", question]);
      expect(asked.code, asked.stderr).toBe(0);
    }
    // The LLM must have been asked (the answers were not refusals), or the loop below checks nothing.
    expect(anthropic.requests.length).toBe(2);
    for (const request of anthropic.requests) expect(hasSalary(JSON.stringify(request.body))).toBe(false);
    const search = await cli(["search", "91000", "--json"]);
    expect(search.code, search.stderr).toBe(0);
    expect(hasSalary(JSON.stringify(json<{ results: unknown[] }>(search).results))).toBe(false);
  });

  it("keeps both halves of an excluded chunk split by hand excluded, and a merge of excluded and included text excluded", async () => {
    const chunkFile = path.join(folder, "_chunks", "handbook.md.md");
    const original = fs.readFileSync(chunkFile, "utf8");
    // Split the first salary chunk at its second sentence; merge the holidays and parking chunks.
    const edited = original
      .replace("euros a year and leads the design team. Bob", "euros a year and leads the design team.\n\n## Chunk 99\n\nBob")
      .replace(/\n## Chunk \d+\n(<!--[^\n]*-->\n)?## Parking/, "\n## Parking");
    expect(edited).not.toBe(original);
    fs.writeFileSync(chunkFile, edited);
    const processed = await cli(["process", folder]);
    expect(processed.code, processed.stderr).toBe(0);

    const chunks = (await chunkTexts()).filter((chunk) => chunk.ref.includes("handbook.md"));
    const bob = chunks.find((chunk) => chunk.content.startsWith("Bob earns"));
    expect(bob?.included).toBe(0);
    expect(chunks.find((chunk) => chunk.content.includes("Alice earns"))?.included).toBe(0);
    expect(chunks.find((chunk) => chunk.content.includes("## Holidays") && chunk.content.includes("## Parking"))?.included).toBe(1);

    // Now merge the second salary chunk into the (included) holidays-and-parking chunk.
    const again = fs.readFileSync(chunkFile, "utf8").replace(/\n## Chunk \d+\n(<!--[^\n]*-->\n)?## Holidays/, "\n## Holidays");
    fs.writeFileSync(chunkFile, again);
    expect((await cli(["process", folder])).code).toBe(0);
    const merged = (await chunkTexts()).find((chunk) => chunk.content.includes("Carol earns") && chunk.content.includes("## Parking"));
    expect(merged?.included).toBe(0);
    for (const chunk of await chunkTexts()) if (!hasSalary(chunk.content)) expect({ content: chunk.content, included: chunk.included }).toEqual({ content: chunk.content, included: 1 });
  });

  it("drops the decisions of text that is gone, so no unrelated chunk inherits them", async () => {
    writeFile(folder, "handbook.md", handbook(WELCOME, INSERTED));
    await add("--force");
    expect((await chunkTexts()).every((chunk) => chunk.included === 1)).toBe(true);
  });

  // SQLite keeps decisions by text in a table of their own (chunk_reviews); PostgreSQL keeps them on the chunk rows, so none can outlive its text.
  it.skipIf(ON_POSTGRES)("keeps no decision of text that is gone in SQLite's table of decisions", () => {
    const db = openSqlite(path.join(home, "data", "chunkpad.db"), { readOnly: true });
    expect(db.prepare("SELECT COUNT(*) FROM chunk_reviews WHERE included = 0").pluck().get()).toBe(0);
    db.close();
  });

  it("gives text new to a folder the folder's default (--new-chunks excluded), and shows it", async () => {
    await add("--new-chunks", "excluded");
    expect((await states()).every((state) => state.included)).toBe(true);
    writeFile(folder, "handbook.md", handbook(HOLIDAYS, WELCOME, INSERTED, SALARIES));
    writeFile(folder, "notes/board.md", "# Board\n\nThe board meets in March to approve the budget.\n");
    await add();
    for (const chunk of await chunkTexts()) {
      const isNew = hasSalary(chunk.content) || chunk.content.includes("The board meets") || chunk.content.includes("## Holidays");
      expect({ content: chunk.content, included: chunk.included }).toEqual({ content: chunk.content, included: isNew ? 0 : 1 });
    }
    expect((await cli(["folders"])).stdout).toMatch(/new chunks start excluded/);
    expect((await cli(["chunks", folder])).stdout).toMatch(/new chunks start excluded/);

    const fresh = makeTempDir("identity-fresh");
    writeFile(fresh, "a.md", "# A\n\nSome private notes about the merger talks.\n");
    expect((await cli(["add", fresh, "--new-chunks", "excluded"])).code).toBe(0);
    expect((await states(fresh)).map((state) => state.included)).toEqual([false]);
    const wrong = await cli(["add", fresh, "--new-chunks", "maybe"]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/--new-chunks takes "included" or "excluded"/);
    expect((await cli(["remove", fresh])).code).toBe(0);
    await add("--new-chunks", "included");
  });

  it("shows what an old answer cited after the document changed, marked as changed", async () => {
    const garden = "# Garden\n\nTomatoes need full sun and steady watering in the summer months.\n";
    anthropic.reset();
    anthropic.script({ reply: "text", deltas: ["Full sun [C1]."] });
    const asked = await cli(["ask", "--json", "--mode", "keyword", "What do tomatoes need?"]);
    expect(asked.code, asked.stderr).toBe(0);
    const { conversationId } = json<{ conversationId: string }>(asked);

    writeFile(folder, "garden.md", garden.replace("full sun and steady watering", "shade and little water"));
    await add();

    const shown = await cli(["history", conversationId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/\[C1\] garden\.md · \w+:garden\.md#1 \(changed since cited; the text below is what was cited\)\n\s+"# Garden Tomatoes need full sun and steady watering in the summer months\."/);
    const view = json<{ messages: Array<{ role: string; citations: Array<{ text: string | null; changed: boolean; missing: boolean }> }> }>(await cli(["history", "--json", conversationId]));
    expect(view.messages.find((message) => message.role === "assistant")?.citations).toEqual([
      expect.objectContaining({ text: garden.trim(), changed: true, missing: false }),
    ]);
  });

  it("re-embeds every chunk of a retitled document, and only those", async () => {
    const first = await cli(["embed", "--json"]);
    expect(first.code, first.stderr).toBe(0);
    const handbookIncluded = (await chunkTexts()).filter((chunk) => chunk.ref.includes(":handbook.md#") && chunk.included === 1).length;
    expect(handbookIncluded).toBeGreaterThan(1);

    const text = fs.readFileSync(path.join(folder, "handbook.md"), "utf8").replace("# Staff handbook", "# Employee handbook");
    writeFile(folder, "handbook.md", text);
    const second = await cli(["embed", "--json"]);
    expect(second.code, second.stderr).toBe(0);
    expect(json<{ embedded: number; unchanged: number }>(second)).toMatchObject({ embedded: handbookIncluded });
  });
});
