import { describe, expect, it } from "vitest";
import { groupByDocument } from "./group.js";

const rows = [
  { ref: "f:a.md#1", score: 0.9 },
  { ref: "f:a.md#2", score: 0.8 },
  { ref: "f:b.md#1", score: 0.7 },
  { ref: "f:a.md#3", score: 0.6 },
  { ref: "f:c.md#4", score: 0.5 },
];
const documentOf = (ref: string) => ref.slice(0, ref.indexOf("#"));

describe("groupByDocument", () => {
  it("keeps each document's best chunk in score order and folds the rest into it", () => {
    const grouped = groupByDocument(rows, documentOf, 1);
    expect(grouped.map((row) => row.ref)).toEqual(["f:a.md#1", "f:b.md#1", "f:c.md#4"]);
    expect(grouped[0]?.moreInDocument).toEqual([{ ref: "f:a.md#2", score: 0.8 }, { ref: "f:a.md#3", score: 0.6 }]);
    expect(grouped[1]?.moreInDocument).toBeUndefined();
  });

  it("shows up to N chunks of a document, and every chunk with 0", () => {
    expect(groupByDocument(rows, documentOf, 2).map((row) => row.ref)).toEqual(["f:a.md#1", "f:a.md#2", "f:b.md#1", "f:c.md#4"]);
    expect(groupByDocument(rows, documentOf, 0).map((row) => row.ref)).toEqual(rows.map((row) => row.ref));
    expect(rows[0]).not.toHaveProperty("moreInDocument");
  });
});
