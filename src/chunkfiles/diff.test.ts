import { describe, expect, it } from "vitest";
import { diffLines } from "./diff.js";

describe("diffLines", () => {
  it("shows the lines only the edit has, the lines only the fresh chunks have, and the rest as shared", () => {
    const mine = "## Chunk 1\nThe heron waits.\nA kingfisher dives.\n## Chunk 2\nDusk.\n";
    const fresh = "## Chunk 1\nThe heron waits by the river.\nA kingfisher dives.\n## Chunk 2\nDusk.\nNight falls.\n";
    expect(diffLines(mine, fresh)).toEqual([
      { kind: "same", text: "## Chunk 1" },
      { kind: "mine", text: "The heron waits." },
      { kind: "fresh", text: "The heron waits by the river." },
      { kind: "same", text: "A kingfisher dives." },
      { kind: "same", text: "## Chunk 2" },
      { kind: "same", text: "Dusk." },
      { kind: "fresh", text: "Night falls." },
    ]);
  });

  it("keeps every line of both sides, in order, whatever the inputs", () => {
    const mine = ["a", "b", "c", "a", "b", "b", "a"].join("\n");
    const fresh = ["c", "b", "a", "b", "a", "c"].join("\n");
    const lines = diffLines(mine, fresh);
    expect(lines.filter((line) => line.kind !== "fresh").map((line) => line.text).join("\n")).toBe(mine);
    expect(lines.filter((line) => line.kind !== "mine").map((line) => line.text).join("\n")).toBe(fresh);
    // The longest common run of these two is four lines.
    expect(lines.filter((line) => line.kind === "same")).toHaveLength(4);
  });

  it("says nothing changed for equal texts, and treats CRLF as LF", () => {
    expect(diffLines("one\r\ntwo\r\n", "one\ntwo\n").every((line) => line.kind === "same")).toBe(true);
  });
});
