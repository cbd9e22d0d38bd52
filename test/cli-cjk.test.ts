import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, writeFile } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";

interface SearchJson {
  results: Array<{ relativePath: string; snippet: string }>;
}

/** Keyword search in Chinese, Japanese and Korean, as a user types the question. */
describe("keyword search in CJK documents", () => {
  let home: string;
  const search = async (query: string) => {
    const result = await runCliInProcess(["search", query, "--mode", "keyword", "--json"], { home });
    expect(result.code, result.stderr).toBe(0);
    return json<SearchJson>(result).results;
  };

  beforeAll(async () => {
    home = makeTempDir("cjk");
    const folder = path.join(home, "docs");
    writeFile(folder, "zh/预算.md", "# 预算会议\n\n我们明天在北京开会讨论明年的预算。财务部会准备报告。\n");
    writeFile(folder, "ja/会議.md", "# 会議のお知らせ\n\n東京都の本社で来週の月曜日に会議があります。資料を準備してください。\n");
    writeFile(folder, "ko/회의.md", "# 회의 안내\n\n서울에서 다음 주 월요일에 예산 회의가 있습니다.\n");
    writeFile(folder, "en/notes.md", "# Notes\n\nThe budget meeting is in Beijing tomorrow.\n");
    const added = await runCliInProcess(["add", folder], { home });
    expect(added.code, added.stderr).toBe(0);
  });
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  it("finds a Chinese word inside a sentence written without spaces", async () => {
    const results = await search("北京 预算");
    expect(results.map((result) => result.relativePath)).toEqual(["zh/预算.md"]);
    expect(results[0]?.snippet).toContain("北京");
  });

  it("finds Japanese words, and a question written as one run of characters", async () => {
    expect((await search("会議")).map((result) => result.relativePath)).toEqual(["ja/会議.md"]);
    expect((await search("東京都の会議")).map((result) => result.relativePath)).toEqual(["ja/会議.md"]);
  });

  it("finds a Korean word with its particle attached in the text", async () => {
    expect((await search("서울")).map((result) => result.relativePath)).toEqual(["ko/회의.md"]);
  });

  it("does not match part of a word, and English search is unchanged", async () => {
    expect(await search("京")).toEqual([]);
    expect((await search("budget Beijing")).map((result) => result.relativePath)).toEqual(["en/notes.md"]);
  });
});
