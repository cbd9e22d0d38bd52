import { describe, expect, it } from "vitest";
import type * as errors from "./errors.js";
import { ChunkpadError, ERROR_CODES, ERROR_TABLE, errorOutcome, isChunkpadError, type ErrorCode } from "./errors.js";

describe("error table", () => {
  it("has one row for every code in the catalogue, and no other", () => {
    expect(Object.keys(ERROR_TABLE).sort()).toEqual(Object.keys(ERROR_CODES).sort());
    // Type level: a code missing from the table would fail to compile here.
    const rows: Record<ErrorCode, unknown> = ERROR_TABLE;
    expect(rows).toBe(ERROR_TABLE);
  });

  it("gives every row an exit code of 1 or 3 and an HTTP error status", () => {
    for (const [code, row] of Object.entries(ERROR_TABLE)) {
      expect([1, 3], code).toContain(row.exitCode);
      expect(row.httpStatus, code).toBeGreaterThanOrEqual(400);
      expect(row.httpStatus, code).toBeLessThan(600);
    }
  });

  it("treats anything that is not a ChunkpadError as a bug", () => {
    expect(errorOutcome(new Error("boom"))).toEqual({ code: "INTERNAL", ...ERROR_TABLE.INTERNAL });
    expect(errorOutcome(new ChunkpadError("LLM_RATE_LIMITED", "slow down")).httpStatus).toBe(429);
  });
});

describe("isChunkpadError", () => {
  it("recognises an error made by a separately loaded copy of the module", async () => {
    // The query string makes the test runner load a second, separate instance of the module.
    const copyPath: string = "./errors.ts?copy";
    const copy = (await import(copyPath)) as typeof errors;
    expect(copy.ChunkpadError).not.toBe(ChunkpadError);
    const foreign = new copy.ChunkpadError("FOLDER_NOT_FOUND", "no such folder");
    expect(foreign instanceof ChunkpadError).toBe(false);
    expect(isChunkpadError(foreign)).toBe(true);
    expect(isChunkpadError(foreign, "FOLDER_NOT_FOUND")).toBe(true);
    expect(isChunkpadError(foreign, "INTERNAL")).toBe(false);
    expect(errorOutcome(foreign).code).toBe("FOLDER_NOT_FOUND");
  });

  it("rejects look-alikes without the brand or with an unknown code", () => {
    expect(isChunkpadError(Object.assign(new Error("x"), { name: "ChunkpadError", code: "NOT_FOUND" }))).toBe(false);
    const branded = Object.assign(new Error("x"), { [Symbol.for("chunkpad.error")]: true, code: "NO_SUCH_CODE" });
    expect(isChunkpadError(branded)).toBe(false);
    expect(isChunkpadError(null)).toBe(false);
    expect(isChunkpadError("NOT_FOUND")).toBe(false);
  });
});
