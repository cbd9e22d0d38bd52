import { describe, expect, it } from "vitest";
import { joinLines, layoutPage, type PositionedText } from "./pdf-layout.js";

/** One text item at (x, y) in a font of `size`, ending its line unless `eol` is false. */
function item(str: string, x: number, y: number, size = 10, eol = true): PositionedText {
  return { str, transform: [size, 0, 0, size, x, y], width: str.length * size * 0.5, height: size, hasEOL: eol };
}

describe("joinLines", () => {
  it("repairs a word hyphenated across a line break", () => {
    expect(joinLines(["the compi-", "lation of traces"])).toBe("the compilation of traces");
  });

  it("keeps a hyphen that belongs to the word when the next line starts with a capital or digit", () => {
    expect(joinLines(["the Trace-", "Monkey VM"])).toBe("the Trace-Monkey VM");
    expect(joinLines(["encoded in ISO-", "8859-1"])).toBe("encoded in ISO-8859-1");
  });

  it("joins ordinary lines with a space and CJK lines without one", () => {
    expect(joinLines(["first line", "second line"])).toBe("first line second line");
    expect(joinLines(["日本", "語の文"])).toBe("日本語の文");
  });
});

describe("layoutPage", () => {
  it("joins lines of one paragraph and separates paragraphs by a blank line's gap", () => {
    const blocks = layoutPage(
      [
        item("First paragraph, line one", 50, 700),
        item("and line two.", 50, 688),
        item("Second paragraph after a gap.", 50, 650),
      ],
      3,
    );
    expect(blocks).toEqual([
      { kind: "paragraph", text: "First paragraph, line one and line two.", page: 3 },
      { kind: "paragraph", text: "Second paragraph after a gap.", page: 3 },
    ]);
  });

  it("starts a paragraph at a first-line indent", () => {
    const blocks = layoutPage(
      [
        item("A paragraph that runs over", 50, 700),
        item("two lines.", 50, 688),
        item("Indented start of the next", 65, 676),
        item("paragraph.", 50, 664),
      ],
      1,
    );
    expect(blocks.map((block) => block.text)).toEqual(["A paragraph that runs over two lines.", "Indented start of the next paragraph."]);
  });

  it("marks a short line in a clearly larger font as a heading", () => {
    const body = Array.from({ length: 6 }, (_, index) => item(`body text line number ${index} of the section`, 50, 600 - index * 12));
    const blocks = layoutPage([item("Results", 50, 640, 18), ...body], 2);
    expect(blocks[0]).toEqual({ kind: "heading", text: "Results", level: 1, page: 2 });
    expect(blocks[1]?.kind).toBe("paragraph");
  });

  it("builds a line from several items and ignores empty ones", () => {
    const blocks = layoutPage([item("Hello", 50, 700, 10, false), item(" ", 75, 700, 10, false), item("world", 80, 700), item("", 0, 0)], 1);
    expect(blocks).toEqual([{ kind: "paragraph", text: "Hello world", page: 1 }]);
  });

  it("gives no blocks for a page without text", () => {
    expect(layoutPage([item("  ", 50, 700)], 1)).toEqual([]);
  });
});
