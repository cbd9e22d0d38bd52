import { describe, expect, it } from "vitest";
import { hashBytes, hashText } from "./hash.js";

describe("hashText", () => {
  it("is the sha256 of the UTF-8 text in hex", () => {
    expect(hashText("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(hashText("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashText("é")).toBe(hashBytes(new TextEncoder().encode("é")));
  });

  it("changes when one character changes", () => {
    expect(hashText("chunk one")).not.toBe(hashText("chunk onE"));
  });
});
