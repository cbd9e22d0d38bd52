import { describe, expect, it } from "vitest";
import type { ParsedDocument } from "../core/types.js";
import { assembleText } from "./assemble.js";

const doc = (blocks: ParsedDocument["blocks"]): ParsedDocument => ({ blocks, warnings: [] });

describe("assembleText", () => {
  it("joins blocks with a blank line and renders headings as markdown", () => {
    const { text } = assembleText(
      doc([
        { kind: "heading", text: "Intro", level: 1 },
        { kind: "paragraph", text: "First paragraph." },
        { kind: "heading", text: "Details", level: 3 },
        { kind: "list", text: "- one\n- two" },
      ]),
    );
    expect(text).toBe("# Intro\n\nFirst paragraph.\n\n### Details\n\n- one\n- two");
  });

  it("gives each block a span that slices back to its rendered text", () => {
    const blocks: ParsedDocument["blocks"] = [
      { kind: "heading", text: "  Multi\nline  title ", level: 9 },
      { kind: "paragraph", text: "  padded text \r\nnext line\r\n" },
      { kind: "paragraph", text: "   " },
      { kind: "table", text: "a | b\nc | d", page: 2 },
    ];
    const { text, spans } = assembleText(doc(blocks));
    expect(spans.map((span) => text.slice(span.start, span.end))).toEqual([
      "###### Multi line title",
      "padded text \nnext line",
      "a | b\nc | d",
    ]);
    expect(spans.map((span) => span.block)).toEqual([blocks[0], blocks[1], blocks[3]]);
  });

  it("gives an empty document empty text", () => {
    expect(assembleText(doc([]))).toEqual({ text: "", spans: [] });
    expect(assembleText(doc([{ kind: "heading", text: " " }]))).toEqual({ text: "", spans: [] });
  });
});
