import { describe, expect, it } from "vitest";
import type { EmbedStateRow } from "../../store/index.js";
import { inBatches, planEmbedding } from "./embed-plan.js";

const row = (ref: string, overrides: Partial<EmbedStateRow> = {}): EmbedStateRow => ({
  ref,
  embedHash: `hash-${ref}`,
  included: true,
  embeddedHash: `hash-${ref}`,
  embeddedFingerprint: "stamp",
  ...overrides,
});

describe("planEmbedding", () => {
  const rows = [
    row("current"),
    row("new", { embeddedHash: null, embeddedFingerprint: null }),
    row("edited", { embeddedHash: "old" }),
    row("other-stamp", { embeddedFingerprint: "older stamp" }),
    row("excluded-with-vector", { included: false }),
    row("excluded-without", { included: false, embeddedHash: null, embeddedFingerprint: null }),
  ];

  it("embeds new, edited and differently stamped chunks, and removes vectors of excluded ones", () => {
    expect(planEmbedding(rows, "stamp")).toEqual({ toEmbed: ["new", "edited", "other-stamp"], toRemove: ["excluded-with-vector"], unchanged: 1, excluded: 2 });
  });

  it("judges by text and review state alone while the stamp is unknown", () => {
    expect(planEmbedding(rows, null)).toEqual({ toEmbed: ["new", "edited"], toRemove: ["excluded-with-vector"], unchanged: 2, excluded: 2 });
  });
});

describe("inBatches", () => {
  it("splits into runs of at most the size, keeping order", () => {
    expect(inBatches([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(inBatches([], 3)).toEqual([]);
  });
});
