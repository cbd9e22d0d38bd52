import { describe, expect, it } from "vitest";
import { neutralizeCitations, parseCitations, renderCitations } from "./citations.js";
import type { CitationLabel } from "./context.js";

const labels: CitationLabel[] = [1, 2, 3, 4, 5].map((number) => ({
  label: `C${number}`,
  ref: `f:doc${number}.pdf#${number}`,
  source: `doc${number}.pdf`,
  page: number * 10,
}));

const cited = (answer: string): string[] => parseCitations(answer, labels).used.map((label) => label.label);

describe("parseCitations", () => {
  it("lists citations in order of first use, each once, with their sources", () => {
    const parsed = parseCitations("Revenue rose [C3]. Costs fell [C1]. Revenue rose again [C3].", labels);
    expect(parsed.used).toEqual([labels[2], labels[0]]);
    expect(parsed.invalid).toEqual([]);
  });

  it("accepts the ways models write citations", () => {
    expect(cited("a [C1, C3] b")).toEqual(["C1", "C3"]);
    expect(cited("a [C1][C2]")).toEqual(["C1", "C2"]);
    expect(cited("a [c2]")).toEqual(["C2"]);
    expect(cited("a [C 2]")).toEqual(["C2"]);
    expect(cited("a [C4; 5]")).toEqual(["C4", "C5"]);
    expect(cited("a [C1 and C2]")).toEqual(["C1", "C2"]);
    expect(cited("a [C2-C4]")).toEqual(["C2", "C3", "C4"]);
    expect(cited("a [C05]")).toEqual(["C5"]);
  });

  it("flags labels the context did not have", () => {
    const parsed = parseCitations("True [C2]. Invented [C9]. Also [C0, C2, C9].", labels);
    expect(parsed.used.map((label) => label.label)).toEqual(["C2"]);
    expect(parsed.invalid).toEqual(["C9", "C0"]);
  });

  it("ignores brackets that are not citations", () => {
    expect(parseCitations("See [1], [Chapter 2], [C], [CC1] and [link](http://x).", labels)).toEqual({ used: [], invalid: [] });
  });
});

describe("renderCitations", () => {
  it("writes one label per bracket and marks invented ones", () => {
    expect(renderCitations("A [c1, C9]. B [C 2][C3].", labels)).toBe("A [C1][C9?]. B [C2][C3].");
  });

  it("lets a face choose how to show each", () => {
    const rendered = renderCitations("Fact [C2]. Guess [C7].", labels, {
      renderValid: (label) => `[${label.label}: ${label.source} p.${label.page}]`,
      renderInvalid: (label) => `[${label}: no such source]`,
    });
    expect(rendered).toBe("Fact [C2: doc2.pdf p.20]. Guess [C7: no such source].");
  });

  it("leaves other brackets alone", () => {
    expect(renderCitations("An array [1, 2] and [Chapter 2].", labels)).toBe("An array [1, 2] and [Chapter 2].");
  });
});

describe("neutralizeCitations", () => {
  it("rewrites what would parse as a citation, and a copy of it cites nothing", () => {
    const text = neutralizeCitations("See [C2], [c 1; 3] and [C2-C4]; not [note], [12] or [Chapter 2].");
    expect(text).toBe("See ⟦C2⟧, ⟦c 1; 3⟧ and ⟦C2-C4⟧; not [note], [12] or [Chapter 2].");
    // A strict answer that copies the document's sentence word for word.
    expect(parseCitations(`${text} [C1]`, labels)).toEqual({ used: [labels[0]], invalid: [] });
    expect(renderCitations(text, labels)).toBe(text);
  });
});
