import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CORPUS_DIR, parseFile, shareOfWordsFound } from "../../../test/helpers/parse.js";
import { chunkpadRejection } from "../../../test/helpers/rejection.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument } from "../../core/types.js";
import { markdownBlocks, markdownBlocksByTree, markdownParser, parseMarkdown } from "./markdown.js";
import { scanMarkdownBlocks } from "./markdown-scan.js";
import { REPO_ROOT } from "../../../test/helpers/cli.js";

function parse(markdown: string): Promise<ParsedDocument> {
  return markdownParser.parse({ path: "notes.md", data: new TextEncoder().encode(markdown), limits: DEFAULT_PARSE_LIMITS });
}

describe("markdownParser", () => {
  it("turns ATX and setext headings into heading blocks with levels", async () => {
    const document = await parse(
      ["# Guide", "", "## Install ##", "", "### Options {#options .wide}", "", "Overview", "========", "", "Details", "-------", "text"].join("\n"),
    );
    expect(document.blocks.filter((block) => block.kind === "heading")).toEqual([
      { kind: "heading", level: 1, text: "Guide" },
      { kind: "heading", level: 2, text: "Install" },
      { kind: "heading", level: 3, text: "Options" },
      { kind: "heading", level: 1, text: "Overview" },
      { kind: "heading", level: 2, text: "Details" },
    ]);
  });

  it("keeps fenced code as code: a '#' inside a fence is not a heading", async () => {
    const document = await parse(["# Script", "", "```bash", "# install the tools", "npm ci", "```", "", "~~~", "## not a heading either", "~~~"].join("\n"));
    expect(document.blocks).toEqual([
      { kind: "heading", level: 1, text: "Script" },
      { kind: "code", text: "# install the tools\nnpm ci" },
      { kind: "code", text: "## not a heading either" },
    ]);
  });

  it("drops front matter but takes its title", async () => {
    const document = await parse(['---', 'title: "Trip notes"', "tags: [travel]", "---", "", "# Day one", "", "We left early."].join("\n"));
    expect(document.title).toBe("Trip notes");
    expect(document.blocks.map((block) => block.text)).toEqual(["Day one", "We left early."]);
  });

  it("keeps text between two thematic breaks at the top of a file (not front matter)", async () => {
    const document = await parse("---\n\nA note set between rules.\n\n---\n\nMore.");
    expect(document.blocks.map((block) => block.text)).toEqual(["A note set between rules.", "More."]);
  });

  it("takes the first level-1 heading as the title without front matter", async () => {
    const document = await parse("Intro text.\n\n## Section\n\n# The Real Title\n\nBody.");
    expect(document.title).toBe("The Real Title");
  });

  it("renders lists, tables and quotes as their own blocks", async () => {
    const document = await parse(
      [
        "Shopping:",
        "",
        "- bread",
        "- fruit",
        "  - apples",
        "  - pears",
        "",
        "1. first",
        "2. second",
        "",
        "| Item | Price |",
        "|------|------:|",
        "| Tea  | 3     |",
        "",
        "> Quoted *words*",
        "> continue here.",
      ].join("\n"),
    );
    expect(document.blocks).toEqual([
      { kind: "paragraph", text: "Shopping:" },
      { kind: "list", text: "- bread\n- fruit\n  - apples\n  - pears" },
      { kind: "list", text: "1. first\n2. second" },
      { kind: "table", text: "Item | Price\nTea | 3" },
      { kind: "quote", text: "Quoted words continue here." },
    ]);
  });

  it("reduces inline markup to plain text", async () => {
    const document = await parse(
      "See **the [manual](https://example.com/m \"M\")**, ![a diagram](d.png) and `a *literal*` \\*star\\* &amp; <span>tags</span>.",
    );
    expect(document.blocks).toEqual([
      { kind: "paragraph", text: "See the manual, a diagram and a *literal* *star* & tags." },
    ]);
  });

  it("keeps a code block inside a list item with its item", async () => {
    const document = await parse(["- Install:", "", "  ```", "  npm ci", "  ```", "- Run it"].join("\n"));
    expect(document.blocks).toEqual([{ kind: "list", text: "- Install:\n  npm ci\n- Run it" }]);
  });

  it("follows CommonMark where a line reader guesses: HTML blocks run to a blank line", async () => {
    const document = await parse(["<div>", "# inside the div", "</div>", "", "# Real heading"].join("\n"));
    expect(document.blocks).toEqual([
      { kind: "paragraph", text: "# inside the div" },
      { kind: "heading", level: 1, text: "Real heading" },
    ]);
  });

  it("resolves link references, multi-line definitions and empty links to their text only", async () => {
    const document = await parse(["[docs]:", "  https://example.com/docs", "  'The docs'", "", "See [docs], [the guide][docs] and [](https://example.com/empty) more."].join("\n"));
    expect(document.blocks).toEqual([{ kind: "paragraph", text: "See docs, the guide and more." }]);
  });

  it("decodes every HTML entity CommonMark knows", async () => {
    const document = await parse("&copy; 2024 &eacute;t&eacute; &mdash; &#169;");
    expect(document.blocks).toEqual([{ kind: "paragraph", text: "© 2024 été — ©" }]);
  });

  it("reports a file with nothing but front matter or blank lines as PARSE_EMPTY", async () => {
    expect((await chunkpadRejection(parse("---\ntitle: x\n---\n\n"))).code).toBe("PARSE_EMPTY");
    expect((await chunkpadRejection(parse(" \n\n"))).code).toBe("PARSE_EMPTY");
  });
});

describe("markdownParser on the corpus", () => {
  it("reads pandoc's test suite: title block, heading levels, and the words pandoc's own HTML rendering shows", async () => {
    const document = await parseFile(markdownParser, `${CORPUS_DIR}/pandoc/testsuite.txt`);
    expect(document.title).toBe("Pandoc Test Suite");
    const headings = document.blocks.filter((block) => block.kind === "heading").map((block) => [block.level, block.text]);
    expect(headings.slice(0, 6)).toEqual([
      [1, "Headers"],
      [2, "Level 2 with an embedded link"],
      [3, "Level 3 with emphasis"],
      [4, "Level 4"],
      [5, "Level 5"],
      [1, "Level 1"],
    ]);
    const html = readFileSync(`${CORPUS_DIR}/pandoc/writer.html5`, "utf8")
      .replace(/<head>[\s\S]*?<\/head>/i, "")
      .replace(/<[^>]+>/g, " ");
    // The HTML shows the author block and a few rewritten spans that the markdown holds as syntax.
    expect(shareOfWordsFound(html, document)).toBeGreaterThan(0.97);
  });

  it("reads pipe tables as table blocks with their cells", async () => {
    const document = await parseFile(markdownParser, `${CORPUS_DIR}/pandoc/pipe-tables.txt`);
    const tables = document.blocks.filter((block) => block.kind === "table");
    expect(tables.length).toBeGreaterThanOrEqual(8);
    expect(tables).toContainEqual({ kind: "table", text: "Fruit | Quantity\napple | 5\norange | 17\npear | 302" });
  });

  it("matches the text of pandoc's expected tree for the ODT test's markdown", async () => {
    const document = await parseFile(markdownParser, `${CORPUS_DIR}/pandoc/odt/markdown/imageWithCaption.md`);
    const native = readFileSync(`${CORPUS_DIR}/pandoc/odt/native/imageWithCaption.native`, "utf8");
    const strings = [...native.matchAll(/Str "([^"]*)"/g)].map((match) => match[1]).join(" ");
    expect(shareOfWordsFound(strings, document)).toBe(1);
    // image.native holds no text at all, and neither does its markdown.
    const empty = await chunkpadRejection(parseFile(markdownParser, `${CORPUS_DIR}/pandoc/odt/markdown/image.md`));
    expect(empty.code).toBe("PARSE_EMPTY");
  });

  it("reads officeParser's markdown like its reference text (front matter title, Word-style emphasis)", async () => {
    const document = await parseFile(markdownParser, `${CORPUS_DIR}/officeParser/files/test.md`);
    expect(document.title).toBe("DOCX Demo");
    expect(document.blocks[0]).toEqual({ kind: "heading", level: 1, text: "Demonstration of DOCX support in calibre" });
    const baseline = readFileSync(`${CORPUS_DIR}/officeParser/parser/baseline/test.md.txt`, "utf8");
    expect(shareOfWordsFound(baseline, document)).toBeGreaterThan(0.98);
    // Embedded images are data URIs in this file; none of that may reach the text.
    expect(document.blocks.some((block) => block.text.includes("base64"))).toBe(false);
  });
});

describe("parseMarkdown without GFM's autolink literals when none can occur", () => {
  const treeOf = (markdown: string, autolinks: "when-possible" | "always") => parseMarkdown(markdown, { autolinks });
  /** Every markdown file of the repository, the fixtures and the shared corpus. */
  const files = (root: string): string[] =>
    existsSync(root)
      ? readdirSync(root, { withFileTypes: true, recursive: true })
          .filter((entry) => entry.isFile() && /\.(md|markdown)$/.test(entry.name) && !entry.parentPath.includes("node_modules"))
          .map((entry) => path.join(entry.parentPath, entry.name))
      : [];
  const markdownFiles = [...files(path.join(REPO_ROOT, "docs")), path.join(REPO_ROOT, "README.md"), ...files(path.join(REPO_ROOT, "test", "fixtures")), ...files(CORPUS_DIR)];
  const edgeCases = [
    "Title\n=====\n\nSub\n---\n\ntext under it",
    "```js\nconst a = 1; // not *emphasis*\n```\n\n~~~\n# not a heading\n~~~\n\n    indented code\n",
    "| a | b |\n|---|:-:|\n| 1 | *2* |\n| x \\| y | z |\n\nnot | a | table",
    "<div>\n*not emphasis* in HTML\n</div>\n\n<!-- comment -->\n\n<br>",
    "- one\n- two\n  - nested\n\n1. first\n2) other\n\n- [x] done\n- [ ] to do",
    "~~struck~~ and ~single~ and ~~~not\n\nA note[^1].\n\n[^1]: The note.",
    "snake_case_words and _emphasis_ and __strong__ and a\\_b and foo*bar*baz",
    "wwwexample.com http:/broken ftp:example user at example.com ww.x.y www and www,x [link](relative/path) <not-an-autolink>",
    "> quote\nlazy line\n\n***\n\n&amp; &copy; &#35; \\* \\_ \\[",
  ];

  it("gives the same tree as full GFM for every text without www., :// or @", () => {
    const texts = [...edgeCases, ...markdownFiles.map((file) => readFileSync(file, "utf8"))]
      // Real files with their links and addresses taken out, so the claim is tested on real structure.
      .map((text) => text.replace(/www\./gi, "www-").replace(/:\/\//g, ":/ /").replaceAll("@", " at "));
    expect(texts.length).toBeGreaterThan(30);
    for (const text of texts) expect(treeOf(text, "when-possible")).toEqual(treeOf(text, "always"));
  });

  it("still reads autolink literals where they can occur", () => {
    const tree = JSON.stringify(treeOf("See www.example.com, https://example.org/x_y_z or me@example.com.", "when-possible"));
    expect(tree.match(/"type":"link"/g)).toHaveLength(3);
  });
});

describe("the line scanner reads markdown to the same blocks as micromark's tree", () => {
  const files = (root: string): string[] =>
    existsSync(root)
      ? readdirSync(root, { withFileTypes: true, recursive: true })
          .filter((entry) => entry.isFile() && /\.(md|markdown|txt)$/.test(entry.name) && !entry.parentPath.includes("node_modules"))
          .map((entry) => path.join(entry.parentPath, entry.name))
      : [];
  const realFiles = [...files(path.join(REPO_ROOT, "docs")), path.join(REPO_ROOT, "README.md"), ...files(path.join(REPO_ROOT, "test", "fixtures")), ...files(CORPUS_DIR)];
  const edgeCases = [
    "Para\n- item interrupts", "Para\n2. continues the paragraph", "Para\n1. a list from one", "Para\n-\nempty item", "Para\n1.\nempty",
    "- a\n- b\n\n- c (loose)\n\n\ntext after", "- a\n* b", "1. a\n1. b\n5. c", "3) x\n4) y\n\n5. other kind", "007. seven\n8. eight", "0. zero",
    "# H #\n## H2 ##  \n#\n# #foo\n####### seven\n#hashtag\n# Title {#id .class}\n##\ttabbed", "Heading right under\n# the paragraph",
    "```\ncode\n```", "```js\nnever closed\n\n# not a heading", "````\n```\ninner\n```\n````", "~~~ info `ok`\n x\n  ~~~", "``` a`b\nnot a fence", "```\n\n\n```",
    "text with trailing spaces  \nnext line\\\nafter a backslash", "- item with *em*\n- plain", "a & b &amp; c", "x < y and y > z", "word\u00a0nbsp\u00a0 here",
    "- item\n# heading", "- item\n```\ncode\n```", "2024. A year\n2025. Another", "- \n- x", "-\tTab item", "- [ ] task\n- [x] done", "- # heading in item",
    "- > quote in item", "- 1. nested at once", "- ```", "10. ten\n11. eleven", "text\n\n    indented code", "text\n    indented continuation",
    "snake_case and *em* and `code` and [link](x) and ![img](y) and ~~gone~~", "text\n+ plus item\n+ more", "+1 agree", "1.5 million", "1.\tx", "-- double dash",
    "*emph* at the start\n- list", "**bold** line\n2. two", "Title\n=====", "Sub\n---", "***", "text\n\n___\n\nmore", "| a | b |\n|---|---|\n| 1 | 2 |",
    "a | b", "<div>\nhtml\n</div>", "> quote", "[ref]: https://example.com\n\n[ref]", "Note[^1].\n\n[^1]: The note.", "-     five spaces: code in an item",
    "- item\nlazy continuation", "- item\n\n  indented second paragraph", "1. one\n- bullet right under", "- a\n\n2. after a blank", "",
    "www.example.com and me@example.com and https://example.org/path", "   \n\t\n", "# Only a heading", "```\n# fenced\n```\n# real",
    "Intro\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- after a table", "| a |\n|---|\n| x |\n```\nfence in the run\n```", "> quote\n\n- list\n\n> again",
    "Title\n===\n\ntext\n\n---\n\nmore\n***", "> quote\nlazy | pipe\n\n    indented after", "| a |\n|---|\n    | indented row |", "a | b\n- c",
    "- a | b\n\n- c", "Text\n> quote under text\n\nafter", "Para\n1969.\nmore", "- item text\n3) continues lazily", "- item\n1969.", "1. a\nb\n2) c",
    "- a\n  2. b", "- a\n  1. b", "Para\n1.     code?", "Para\n2.     x", "- a\n-", "- a\n+ b", "1. a\n1) b", "- a\n1. b", "- a\n2. b", "- a\n  # h", "- a\n  > q", "| t |\n|---|\n<div>x</div>", "x\n\n| a |\n|:-:|\n| [l](u) *e* \\| p |\n\n# Next",
    "See [the index](https://example.org/1) for more.", "[---](x)\n\ntext [a](b) ---\nmore", "text [a](b)\n---", "# [Title](x) {#id}", "## See [a](b) ##",
    "- [a](b)\n- plain [c](d) e", "1. [a](b)\n2. c", "[a](b)(c)", "[a](<b>)", "[a](b \"t\")", "[a b](c d)", "[](x)", "[ spaced ](x)", "[a](b)[c](d)",
    "![a](b)", "[a [b](c)]", "[a](b) and www.x.com", "x [1](2) y", "[a]\n(b)", "[a](b\nc)", "[a\nb](c)", "[é](x)", "[a](b)\n=====", "[a](b) | c",
    "| y | n |\n|---|---|\n| 1960 | 7 |", "| a |\n|-|\n| x |", "| a | b |\n| :- | -: |\n| | x |", "| a | b |\n|---|\n| 1 | 2 |", "| a |\n|---|---|\n| 1 |",
    "| a | b |\n|---|---|\n| 1 |", "| a | b |\n|---|---|\n| 1 | 2 | 3 |", "| a | b |\n|---|---|\nno pipes", "| a |\n|---|\n| --- |\n| [l](u) --- |", "||\n|-|\n||",
    "| a | b |\n|---|---|", "| a |  \n|---|\t\n| b |", "| `a|b` | c |\n|---|---|", "| a \\| b |\n|---|", "| R&D | x_y |\n|---|---|\n| &amp; | _e_ |", "|a|b|\n|--|--|\n|1|2|",
    "| a |\n|---|\n| www.x.com |", "| a\u00a0| b |\n|---|---|", "| a |\n| --- |\n| x |", "|  |\n|---|", "| - |\n|---|", "| a |\n|---|\n|",
    "R&D at AT&T", "R & D", "Fish &amp; chips", "&copy; 2024", "&#169; and &#xA9;", "a&b;c", "&", "& amp;", "x &nbsp y", "&AMP;",
    "wow! really!!", "see ![a](b)", "see!\n[a](b)", "!", "[!](x)", "a ! [b](c)", "ME?!",
    "snake_case_name", "Machine_Aided Indexing", "_lead", "trail_", "a__b", "__bold__", "_em_", "x _em_ y", "1_000", "é_x", "e\u0301_x", "a_!", "a_ b", "ü_ß", "[a_b](c)", "[a](b_c)",
    "Konigova [1], Cooper [2]", "shooting [?].", "[^1] no note", "[a] [b]", "[a][b]", "[]", "[x](", "x](y", "[*a*]", "![a]", "[a]\n(b) [c](d)", "- cites [1]\n- and [2]", "| a [1] |\n|---|",
    "- listed: 1) Org\nstructures; 2) Tech;\n3) Budgets;\n4) Use\n- next", "- a\n3. b\n\n- c", "1. a\n2) b", "1. a\n3) b\n2. c", "- a\n  b\n7) c", "- a\n0) b", "- a\n2)", "- a\n2)\tb",
    "1. One\n    1. Two\n        1. Three", "- a\n    - b", "- a\n    ---", "- a\n     # h", "- a\n    > q", "- a\n    | t |", "- a\n    ```\n    x\n    ```", "1. a\n2. b\nText\n1. c\n    1. d",
    "- a b\n1969.\nmore", "- a\n1.\n- b", "- a\n2.\nx", "- a\n-\n- b", "-\n- a", "1.\n2. x", "1969.\nmore", "1969.\n   more", "1969.\n\nmore", "- a\n-\n\n- b",
    "- a\n-  \n  x", "-\t\n- b", "1.\n\n   x", "- a\n1969.\n- b\n1970.", "text\n\n2024.\n2025. x", "- a\n1)\n2)", "*\n* b", "+\n\n+ x", "- a\n- \nlazy?", "1. x\n2.\n   y",
    "X * Y", "X ** Y", "X *_ Y", "X _* Y", "a * b*", "*a * b*", "a *\tb", "x * y * z", "a _ b", "a __ b_", "T*U -> [0,1]", "a -> b", "a > b <c>", "a >", "x <- y -> z", "- a -> b\n- c * d",
    "| a -> b | c * d |\n|---|---|", "**a * b**", "a * *b*", "3 * 4 = 12", "a\t*\tb", "a *", "* a * b", "## A -> B", "## X * Y",
    "## R&D_x!", "- R & D\n- snake_case\n- wow!", "# _Emph_ title", "snake_case and *em*", "R&D [link](x) and ![img](y)",
  ];
  const cisi = path.join(REPO_ROOT, "..", "shared", "ir", "cisi", "CISI.ALL");
  /** Notes made of CISI abstracts the way a notes folder is written: sections, lists, a link, sometimes code. */
  const notes = existsSync(cisi)
    ? Array.from({ length: 60 }, (_, file) => {
        const abstracts = readFileSync(cisi, "utf8").split(/^\.I /m).slice(1 + file * 4, 5 + file * 4).map((entry) => entry.split(/^\.W\n/m)[1]?.split(/^\.X\n/m)[0]?.trim() ?? "");
        return [`# Note ${file}`, "", `See [the index](https://example.org/${file}) for more.`, "", ...abstracts.flatMap((text, index) => [
          `## Part ${index + 1}`, "", text, "", ...text.split(/(?<=\.)\s+/).slice(0, 2).map((sentence) => `${index % 2 ? "1." : "-"} ${sentence}`), "",
          ...(index === 2 ? ["```sh", "chunkpad search \"retrieval\"", "```", ""] : []),
        ])].join("\n");
      })
    : [];

  it("gives the same blocks on edge cases, every markdown and text file at hand, and generated notes", () => {
    const texts = [...edgeCases, ...realFiles.map((file) => readFileSync(file, "utf8").replace(/\r\n?/g, "\n")), ...notes];
    expect(texts.length).toBeGreaterThan(100);
    for (const text of texts) expect(markdownBlocks(text), text.slice(0, 200)).toEqual(markdownBlocksByTree(text));
  });

  it("reads a plain link itself (its label's text), leaving other inline markup to micromark", () => {
    const parsed: string[] = [];
    const parseBlock = (text: string) => (parsed.push(text), markdownBlocksByTree(text));
    expect(scanMarkdownBlocks("# See [the guide](https://example.org/guide)\n\nRead [the index](https://example.org/1) first.\n\n- [one](a)\n- two", parseBlock)).toEqual([
      { kind: "heading", level: 1, text: "See the guide" },
      { kind: "paragraph", text: "Read the index first." },
      { kind: "list", text: "- one\n- two" },
    ]);
    expect(parsed).toEqual([]);
    scanMarkdownBlocks("Read [the *index*](x) first.\n\nand ![a picture](p.png)", parseBlock);
    expect(parsed).toEqual(["Read [the *index*](x) first.", "and ![a picture](p.png)"]);
  });

  it("reads pipe tables, a bare &, ! or [1], underscores inside words, empty items and a list of another kind under an item itself, leaving entities, images and emphasis to micromark", () => {
    const parsed: string[] = [];
    const parseBlock = (text: string) => (parsed.push(text), markdownBlocksByTree(text));
    expect(scanMarkdownBlocks("| year | count |\n|---|:-:|\n| 1960 | [12](x) |\n\n## R&D at AT&T\n\nMachine_Aided work [1], ME?!\n\n- R & D\n- snake_case", parseBlock)).toEqual([
      { kind: "table", text: "year | count\n1960 | 12" },
      { kind: "heading", level: 2, text: "R&D at AT&T" },
      { kind: "paragraph", text: "Machine_Aided work [1], ME?!" },
      { kind: "list", text: "- R & D\n- snake_case" },
    ]);
    expect(parsed).toEqual([]);
    // A numbered line of another kind under a bullet's text begins a new list, as in micromark's tree.
    expect(scanMarkdownBlocks("- targets: 1) structures;\n3) budgets;\n4) machines\n- next", parseBlock)).toEqual([
      { kind: "list", text: "- targets: 1) structures;" },
      { kind: "list", text: "3. budgets;\n4. machines" },
      { kind: "list", text: "- next" },
    ]);
    expect(parsed).toEqual([]);
    // A year alone on a line under an item's text is an empty item of a list of its own.
    expect(scanMarkdownBlocks("- early progress appeared in\n1969.\nMore text", parseBlock)).toEqual([
      { kind: "list", text: "- early progress appeared in" },
      { kind: "list", text: "1969." },
      { kind: "paragraph", text: "More text" },
    ]);
    expect(parsed).toEqual([]);
    // "X * Y" and "->" are text: a run of * with spaces on both sides cannot be emphasis, nor a > with no < anywhere HTML.
    expect(scanMarkdownBlocks("A fuzzy set on X * Y, and T -> [0,1].", parseBlock)).toEqual([{ kind: "paragraph", text: "A fuzzy set on X * Y, and T -> [0,1]." }]);
    expect(parsed).toEqual([]);
    const markup = ["Fish &amp; chips", "see ![a](b)", "an _emphasis_ here", "T*U and a * b*", "x -> <b>y</b>", "| a | b |\n|---|\n| 1 | 2 |", "| a |\n|---|\n| `c` |"];
    for (const text of markup) scanMarkdownBlocks(text, parseBlock);
    expect(parsed).toEqual(markup);
  });

  it("reads most notes itself, leaving only the blocks with inline markup to micromark", () => {
    expect(notes.length).toBe(60);
    const scanned = notes.filter((text) => scanMarkdownBlocks(text, () => []) !== undefined);
    expect(scanned.length).toBeGreaterThanOrEqual(notes.length * 0.9);
  });
});
