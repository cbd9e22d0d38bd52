import { describe, expect, it } from "vitest";
import { passwordCandidates, prepareForSasl } from "./pdf-password.js";

describe("passwordCandidates", () => {
  it("tries an ASCII password once", () => {
    expect(passwordCandidates("Hello")).toEqual(["Hello"]);
  });

  it("tries a non-ASCII password as typed, SASL-prepared, and as UTF-8 bytes", () => {
    const candidates = passwordCandidates("pässwört");
    expect(candidates).toContain("pässwört");
    expect(candidates).toContain("p\u00c3\u00a4ssw\u00c3\u00b6rt");
    expect(new Set(candidates).size).toBe(candidates.length);
  });
});

describe("prepareForSasl", () => {
  it("drops characters mapped to nothing and applies NFKC", () => {
    expect(prepareForSasl("S\u00aaSL\u00adprep")).toBe("SaSLprep");
    expect(prepareForSasl("a\u00a0b")).toBe("a b");
  });
});
