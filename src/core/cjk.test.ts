import { describe, expect, it } from "vitest";
import { cjkWords, hasCjk, spaceCjkWords } from "./cjk.js";

describe("CJK word segmentation", () => {
  it("cuts Japanese and Chinese runs into words and leaves other text alone", () => {
    expect(cjkWords("東京都に住んでいます")).toEqual(["東京", "都", "に", "住", "んで", "い", "ます"]);
    expect(cjkWords("我们明天在北京开会")).toEqual(["我们", "明天", "在", "北京", "开会"]);
    expect(spaceCjkWords("Budget 2025: 北京开会。Done")).toBe("Budget 2025:  北京 开会 。Done");
    expect(spaceCjkWords("plain English text")).toBe("plain English text");
  });

  it("knows CJK text when it sees it, Korean aside (written with spaces)", () => {
    expect(hasCjk("会議")).toBe(true);
    expect(hasCjk("カタカナ")).toBe(true);
    expect(hasCjk("서울에서 회의")).toBe(false);
    expect(hasCjk("café")).toBe(false);
  });
});
