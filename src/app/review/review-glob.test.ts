import { describe, expect, it } from "vitest";
import { isGlobPattern, matchesGlob } from "./review-glob.js";

describe("matchesGlob", () => {
  it("keeps * and ? within one folder", () => {
    expect(matchesGlob("reports/q3.pdf", "reports/*.pdf")).toBe(true);
    expect(matchesGlob("reports/2024/q3.pdf", "reports/*.pdf")).toBe(false);
    expect(matchesGlob("reports/q3.pdf", "reports/q?.pdf")).toBe(true);
    expect(matchesGlob("reports/q10.pdf", "reports/q?.pdf")).toBe(false);
  });

  it("lets ** cross folders, including none", () => {
    expect(matchesGlob("a/b/c/letter.docx", "**/*.docx")).toBe(true);
    expect(matchesGlob("letter.docx", "**/*.docx")).toBe(true);
    expect(matchesGlob("reports/2024/q3.pdf", "reports/**")).toBe(true);
    expect(matchesGlob("other/q3.pdf", "reports/**")).toBe(false);
  });

  it("matches the file name at any depth when the pattern has no slash", () => {
    expect(matchesGlob("deep/down/notes.md", "*.md")).toBe(true);
    expect(matchesGlob("deep/down/notes.md", "*.pdf")).toBe(false);
  });

  it("supports classes and alternatives, and treats regex characters literally", () => {
    expect(matchesGlob("scan1.pdf", "scan[0-9].pdf")).toBe(true);
    expect(matchesGlob("scanX.pdf", "scan[!0-9].pdf")).toBe(true);
    expect(matchesGlob("scan1.pdf", "scan[!0-9].pdf")).toBe(false);
    expect(matchesGlob("a.docx", "*.{pdf,docx}")).toBe(true);
    expect(matchesGlob("a.txt", "*.{pdf,docx}")).toBe(false);
    expect(matchesGlob("a+b (1).txt", "a+b (1).*")).toBe(true);
    expect(matchesGlob("aab (1).txt", "a+b (1).*")).toBe(false);
  });

  it("reads nested alternatives, numeric ranges and escaped glob characters", () => {
    expect(matchesGlob("a.pdf", "*.{md,{pdf,docx}}")).toBe(true);
    expect(matchesGlob("a.md", "*.{md,{pdf,docx}}")).toBe(true);
    expect(matchesGlob("a.txt", "*.{md,{pdf,docx}}")).toBe(false);
    expect(matchesGlob("minutes-3.md", "minutes-{1..3}.md")).toBe(true);
    expect(matchesGlob("minutes-4.md", "minutes-{1..3}.md")).toBe(false);
    expect(matchesGlob("what*.md", "what\\*.md")).toBe(true);
    expect(matchesGlob("whatever.md", "what\\*.md")).toBe(false);
  });

  it("matches dotfiles and names with parentheses like any other file", () => {
    expect(matchesGlob("notes/.draft.md", "*.md")).toBe(true);
    expect(matchesGlob(".private/notes.md", "**/*.md")).toBe(true);
    expect(matchesGlob("downloads/Report (1).pdf", "downloads/Report (*).pdf")).toBe(true);
  });

  it("tells globs from plain paths", () => {
    expect(isGlobPattern("reports/*.pdf")).toBe(true);
    expect(isGlobPattern("reports/q3.pdf")).toBe(false);
  });
});
