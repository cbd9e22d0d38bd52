import { describe, expect, it } from "vitest";
import { CHUNK_COLUMN_NAMES, CHUNK_COLUMNS } from "./chunk-rows.js";

describe("chunk rows read as arrays", () => {
  it("name the columns CHUNK_COLUMNS selects, in its order (a raw row is read by position)", () => {
    expect([...CHUNK_COLUMNS.matchAll(/\bAS (\w+)/g)].map((match) => match[1])).toEqual([...CHUNK_COLUMN_NAMES]);
  });
});
