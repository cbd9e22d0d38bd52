import { describe, expect, it } from "vitest";
import { carryReviewDecisions, shingles } from "./review-carry.js";
import { sha256Hex } from "../core/chunk-ref.js";

const chunk = (content: string, included = true) => ({ content, contentHash: sha256Hex(content), included });
const fresh = (content: string) => ({ content, contentHash: sha256Hex(content) });

const intro = "Welcome to the staff handbook. It explains how the office works day to day.";
const salaries = "Salaries: Alice earns 91000 euros, Bob earns 87000 euros, Carol earns 120000 euros a year.";
const holidays = "Holidays: everyone gets twenty five days of paid leave plus public holidays in the region.";
const parking = "Parking: the garage opens at seven and closes at nine in the evening on weekdays.";

describe("carryReviewDecisions", () => {
  it("keeps decisions with their text when paragraphs are inserted above", () => {
    const old = [chunk(intro), chunk(salaries, false), chunk(holidays)];
    const next = [fresh("A new opening paragraph about the company history and its founders."), fresh(intro), fresh(salaries), fresh(holidays)];
    const carried = carryReviewDecisions(old, next, true);
    expect(carried.map((decision) => decision.included)).toEqual([true, true, false, true]);
    expect(carried.map((decision) => decision.reason)).toEqual(["new-text", "same-text", "same-text", "same-text"]);
  });

  it("gives new text the folder's default", () => {
    const carried = carryReviewDecisions([chunk(intro)], [fresh(intro), fresh(parking)], false);
    expect(carried.map((decision) => decision.included)).toEqual([true, false]);
  });

  it("gives every chunk of a document seen for the first time the folder's default", () => {
    for (const included of [true, false]) {
      const carried = carryReviewDecisions([], [fresh(intro), fresh(salaries)], included);
      expect(carried).toEqual([{ included, reason: "new-text", from: null }, { included, reason: "new-text", from: null }]);
    }
  });

  it("pairs duplicate texts in order", () => {
    const old = [chunk(intro, false), chunk(holidays), chunk(intro, true)];
    const carried = carryReviewDecisions(old, [fresh(intro), fresh(intro)], true);
    expect(carried).toEqual([
      { included: false, reason: "same-text", from: 0 },
      { included: true, reason: "same-text", from: 2 },
    ]);
  });

  it("keeps both halves of a split excluded chunk excluded", () => {
    const old = [chunk(intro), chunk(salaries, false), chunk(holidays)];
    const next = [fresh(intro), fresh("Salaries: Alice earns 91000 euros, Bob earns 87000 euros,"), fresh("Carol earns 120000 euros a year."), fresh(holidays)];
    expect(carryReviewDecisions(old, next, true).map((decision) => decision.included)).toEqual([true, false, false, true]);
  });

  it("excludes a merge of an excluded chunk with an included one", () => {
    const old = [chunk(intro), chunk(salaries, false), chunk(holidays)];
    const next = [fresh(intro), fresh(`${salaries}\n\n${holidays}`)];
    const carried = carryReviewDecisions(old, next, true);
    expect(carried[1]).toEqual({ included: false, reason: "from-excluded", from: 1 });
  });

  it("includes a merge of two included chunks even when new text is excluded by default", () => {
    const old = [chunk(intro), chunk(holidays), chunk(parking)];
    const carried = carryReviewDecisions(old, [fresh(intro), fresh(`${holidays} ${parking}`)], false);
    expect(carried[1]).toMatchObject({ included: true, reason: "edited" });
  });

  it("keeps an edited chunk's decision", () => {
    const old = [chunk(intro), chunk(salaries, false)];
    const next = [fresh(intro.replace("day to day", "every day")), fresh(salaries.replace("91000", "93000"))];
    const carried = carryReviewDecisions(old, next, false);
    expect(carried.map((decision) => [decision.included, decision.reason])).toEqual([[true, "edited"], [false, "from-excluded"]]);
  });

  it("does not exclude a neighbour for the overlap it shared with an excluded chunk", () => {
    const edge = "The review happens every spring.";
    const old = [chunk(`${holidays} ${edge}`), chunk(`${edge} ${salaries}`, false)];
    const next = [fresh(`${holidays.replace("twenty five", "thirty")} ${edge}`), fresh(`${edge} ${salaries}`)];
    expect(carryReviewDecisions(old, next, true).map((decision) => decision.included)).toEqual([true, false]);
  });

  it("treats unrelated rewritten text as new", () => {
    const carried = carryReviewDecisions([chunk(salaries, false)], [fresh(parking)], true);
    expect(carried).toEqual([{ included: true, reason: "new-text", from: null }]);
  });
});

describe("shingles", () => {
  it("is case- and punctuation-blind, and keeps short texts whole", () => {
    expect([...shingles("Hello, World! Again")]).toEqual(["hello world again"]);
    expect([...shingles("Two words")]).toEqual(["two words"]);
    expect(shingles("  ").size).toBe(0);
  });
});
