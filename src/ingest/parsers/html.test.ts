import { readFileSync } from "node:fs";
import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { CORPUS_DIR, parseFile, shareOfWordsFound } from "../../../test/helpers/parse.js";
import { chunkpadRejection } from "../../../test/helpers/rejection.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument } from "../../core/types.js";
import { htmlParser } from "./html.js";

function parse(html: string | Uint8Array): Promise<ParsedDocument> {
  const data = typeof html === "string" ? new TextEncoder().encode(html) : html;
  return htmlParser.parse({ path: "page.html", data, limits: DEFAULT_PARSE_LIMITS });
}

const allText = (document: ParsedDocument): string => document.blocks.map((block) => block.text).join("\n");

const STORY_PARAGRAPH =
  "of the story. The river rose four metres overnight and the town council opened the school gym as a shelter " +
  "for families from the lower streets, while volunteers filled sandbags along the embankment until dawn.";

/** A news page whose layout uses plain divs: the kind of boilerplate only Readability's scoring finds. */
const NEWS_PAGE = `<!doctype html><html><head><title>Flood in Riverton | Daily News</title></head><body>
<div id="top"><div class="logo">Daily News</div><div class="menu"><a href="/">Home</a> <a href="/world">World</a></div></div>
<div class="layout">
  <div class="sidebar"><h3>Most read</h3><ul>${Array.from({ length: 12 }, (_, index) => `<li><a href="/s${index}">Trending headline ${index} everyone clicks</a></li>`).join("")}</ul></div>
  <div class="content"><h1>Flood in Riverton</h1><h2>Night of the sandbags</h2>
    ${[1, 2, 3].map((index) => `<p>Paragraph ${index} ${STORY_PARAGRAPH}</p>`).join("")}
    <h2>What comes next</h2>${[4, 5].map((index) => `<p>Paragraph ${index} ${STORY_PARAGRAPH}</p>`).join("")}</div>
  <div class="comments"><h3>Comments</h3><div class="comment">First! Great article.</div></div>
</div>
<div class="copyright">Copyright 2024 Daily News. All rights reserved.</div>
</body></html>`;

describe("htmlParser", () => {
  it("turns h1-h6 into heading blocks with their levels and takes the title from <title>", async () => {
    const headings = [1, 2, 3, 4, 5, 6].map((level) => `<h${level}>Level ${level}</h${level}><p>text ${level}</p>`).join("");
    const document = await parse(`<html><head><title> Levels  page </title></head><body>${headings}</body></html>`);
    expect(document.title).toBe("Levels page");
    expect(document.blocks.filter((block) => block.kind === "heading")).toEqual(
      [1, 2, 3, 4, 5, 6].map((level) => ({ kind: "heading", level, text: `Level ${level}` })),
    );
  });

  it("drops scripts, styles, navigation, page header and footer, and asides", async () => {
    const document = await parse(`<html><body>
      <header><a href="/">Site name</a></header>
      <nav><ul><li><a href="/a">Menu entry</a></li></ul></nav>
      <script>var tracking = "script text";</script><style>p { color: red }</style>
      <h1>Opening hours</h1><p>We open at nine.</p>
      <aside>Related: other pages</aside>
      <footer>Imprint and legal notice</footer>
    </body></html>`);
    expect(document.blocks).toEqual([
      { kind: "heading", level: 1, text: "Opening hours" },
      { kind: "paragraph", text: "We open at nine." },
    ]);
  });

  it("keeps an article's own header, which holds its title", async () => {
    const document = await parse(`<body><header>Site banner</header><article><header><h1>Release notes</h1></header><p>Version 2 is out.</p></article></body>`);
    expect(allText(document)).toBe("Release notes\nVersion 2 is out.");
  });

  it("uses <main> when the page marks its main content", async () => {
    const document = await parse(`<body><div class="promo">Subscribe to our newsletter</div><main><h2>Recipe</h2><p>Mix and bake.</p></main></body>`);
    expect(allText(document)).toBe("Recipe\nMix and bake.");
  });

  it("finds the story on a page laid out with plain divs, without the sidebar, menu or comments", async () => {
    const document = await parse(NEWS_PAGE);
    const headings = document.blocks.filter((block) => block.kind === "heading").map((block) => [block.level, block.text]);
    expect(headings).toEqual([
      [1, "Flood in Riverton"],
      [2, "Night of the sandbags"],
      [2, "What comes next"],
    ]);
    expect(document.blocks.filter((block) => block.kind === "paragraph")).toHaveLength(5);
    const text = allText(document);
    for (const boilerplate of ["Most read", "Trending headline", "Comments", "Great article", "Copyright", "Home"]) {
      expect(text).not.toContain(boilerplate);
    }
  });

  it("renders lists, tables, code, quotes and line breaks", async () => {
    const document = await parse(`<body>
      <ol start="3"><li>third<ul><li>detail</li></ul></li><li>fourth</li></ol>
      <table><caption>Prices</caption><tr><th>Item</th><th>Price</th></tr><tr><td>Tea</td><td>3 €</td></tr></table>
      <pre>  indented
    code</pre>
      <blockquote><p>Quoted text.</p></blockquote>
      <p>Line one<br>line two</p>
      <dl><dt>Term</dt><dd>Meaning</dd></dl>
    </body>`);
    expect(document.blocks).toEqual([
      { kind: "list", text: "3. third\n  - detail\n4. fourth" },
      { kind: "paragraph", text: "Prices" },
      { kind: "table", text: "| Item | Price |\n| --- | --- |\n| Tea | 3 € |", header: "| Item | Price |\n| --- | --- |" },
      { kind: "code", text: "  indented\n    code" },
      { kind: "quote", text: "Quoted text." },
      { kind: "paragraph", text: "Line one\nline two" },
      { kind: "list", text: "- Term: Meaning" },
    ]);
  });

  it("decodes a legacy page by its meta charset", async () => {
    const head = new TextEncoder().encode('<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"></head><body><p>');
    const body = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80, 0x32]);
    const tail = new TextEncoder().encode("</p></body></html>");
    const document = await parse(new Uint8Array([...head, ...body, ...tail]));
    expect(allText(document)).toBe("café €2");
  });

  it("decodes a windows-1251 page by <meta charset>", async () => {
    const head = new TextEncoder().encode('<meta charset="windows-1251"><p>');
    const document = await parse(new Uint8Array([...head, 0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]));
    expect(allText(document)).toBe("Привет");
  });

  describe("detects the character set as browsers do", () => {
    const chinese = "北京大学图书馆收藏了许多古代地图和手稿，研究人员每天都来查阅这些珍贵的资料。";
    const page = (head: string, text: string): string => `<html><head>${head}<title>Library</title></head><body><p>${text}</p></body></html>`;
    it.each([
      ["GBK without a declaration", iconv.encode(page("", chinese), "gbk"), chinese],
      ["GBK declared by http-equiv as gb2312", iconv.encode(page(`<meta http-equiv="Content-Type" content="text/html; charset=gb2312">`, chinese), "gbk"), chinese],
      ["Shift_JIS without a declaration", iconv.encode(page("", "東京の図書館で古い地図を調べています。"), "shift_jis"), "東京の図書館で古い地図を調べています。"],
      ["EUC-KR declared as ks_c_5601-1987", iconv.encode(page(`<meta charset="ks_c_5601-1987">`, "서울의 도서관에서 오래된 지도를 조사하고 있습니다."), "euc-kr"), "서울의 도서관에서 오래된 지도를 조사하고 있습니다."],
      ["EUC-KR without a declaration", iconv.encode(page("", "서울의 도서관에서 오래된 지도를 조사하고 있습니다."), "euc-kr"), "서울의 도서관에서 오래된 지도를 조사하고 있습니다."],
      ["Big5 without a declaration", iconv.encode(page("", "臺灣的圖書館收藏了許多古代地圖和手稿。"), "big5"), "臺灣的圖書館收藏了許多古代地圖和手稿。"],
      ["windows-1251 without a declaration", iconv.encode(page("", "Библиотека хранит старинные карты и рукописи."), "windows-1251"), "Библиотека хранит старинные карты и рукописи."],
      ["windows-1252 without a declaration", iconv.encode(page("", "Café déjà vu, naïve façade — «très» élève."), "windows-1252"), "Café déjà vu, naïve façade — «très» élève."],
      ["UTF-16LE with a BOM", Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(page("", chinese), "utf-16le")]), chinese],
      ["UTF-16LE of mostly Chinese, no BOM", iconv.encode(`<p>${chinese.repeat(60)}</p>`, "utf-16le"), chinese],
      ["UTF-16BE declared utf-16, no BOM", iconv.encode(page(`<meta charset="utf-16">`, chinese), "utf-16be"), chinese],
    ])("%s", async (_, bytes, expected) => {
      expect(allText(await parse(new Uint8Array(bytes)))).toContain(expected);
    });
  });

  it("falls back to the visible text of old-style pages: layout tables, font tags, markup before <html>, framesets", async () => {
    const oldStyle = `<META NAME="generator" CONTENT="FrontPage 4.0"><HTML><HEAD><TITLE>Shop</TITLE></HEAD><BODY BGCOLOR="#FFFFFF"><CENTER><TABLE WIDTH=600><TR><TD><FONT FACE="Arial" SIZE=2><B>Welcome</B><BR>Our shop sells hand-made furniture since 1974.</FONT></TD></TR><TR><TD><FONT SIZE=1>Call 555-0100</FONT></TD></TR></TABLE></CENTER></BODY></HTML>`;
    expect((await parse(oldStyle)).blocks).toEqual([
      { kind: "paragraph", text: "Welcome Our shop sells hand-made furniture since 1974." },
      { kind: "paragraph", text: "Call 555-0100" },
    ]);
    const frames = `<html><head><title>Frames</title></head><frameset cols="20%,80%"><frame src="menu.html"><noframes><body><p>This site uses frames; here is its text for old browsers.</p></body></noframes></frameset></html>`;
    expect(allText(await parse(frames))).toBe("This site uses frames; here is its text for old browsers.");
  });

  it("still yields the text of a short page or a bare fragment", async () => {
    expect(allText(await parse("<html><body><p>Back in five minutes.</p></body></html>"))).toBe("Back in five minutes.");
    expect(allText(await parse("Just a line of text"))).toBe("Just a line of text");
  });

  it("reports a page with no visible text as PARSE_EMPTY", async () => {
    expect((await chunkpadRejection(parse("<html><head><title>T</title></head><body><script>x()</script></body></html>"))).code).toBe("PARSE_EMPTY");
    expect((await chunkpadRejection(parse(""))).code).toBe("PARSE_EMPTY");
  });
});

describe("htmlParser on the corpus", () => {
  const testsuite = readFileSync(`${CORPUS_DIR}/pandoc/testsuite.txt`, "utf8");

  it.each(["writer.html5", "writer.html4"])("reads pandoc's %s with the headings and words of its markdown source", async (name) => {
    const document = await parseFile(htmlParser, `${CORPUS_DIR}/pandoc/${name}`);
    expect(document.title).toBe("Pandoc Test Suite");
    const headings = document.blocks.filter((block) => block.kind === "heading").map((block) => [block.level, block.text]);
    // HTML4 puts the title block in <div id="header"> as headings; HTML5 in a <header>, which is dropped.
    const start = headings.findIndex(([, text]) => text === "Headers");
    const titleBlock = [[1, "Pandoc Test Suite"], [2, "John MacFarlane"], [2, "Anonymous"], [3, "July 17, 2006"]];
    expect(headings.slice(0, start)).toEqual(name === "writer.html4" ? titleBlock : []);
    expect(headings.slice(start, start + 5)).toEqual([
      [1, "Headers"],
      [2, "Level 2 with an embedded link"],
      [3, "Level 3 with emphasis"],
      [4, "Level 4"],
      [5, "Level 5"],
    ]);
    // The source also holds markup words (URLs, raw HTML, LaTeX) that a rendering does not show.
    expect(shareOfWordsFound(testsuite, document)).toBeGreaterThan(0.9);
  });

  it.each(["tables.html4", "tables.html5"])("reads every word of pandoc's %s tables", async (name) => {
    const document = await parseFile(htmlParser, `${CORPUS_DIR}/pandoc/${name}`);
    expect(shareOfWordsFound(readFileSync(`${CORPUS_DIR}/pandoc/tables.txt`, "utf8"), document)).toBe(1);
    const header = "| Centered Header | Left Aligned | Right Aligned | Default aligned |\n| --- | --- | --- | --- |";
    expect(document.blocks).toContainEqual({
      kind: "table",
      text: `${header}\n| First | row | 12.0 | Example of a row that spans multiple lines. |\n| Second | row | 5.0 | Here’s another one. Note the blank line between rows. |`,
      header,
    });
  });

  it("reads a slide-show fragment (no <html> or <body>)", async () => {
    const document = await parseFile(htmlParser, `${CORPUS_DIR}/pandoc/s5-fragment.html`);
    expect(document.blocks.slice(0, 2)).toEqual([
      { kind: "heading", level: 1, text: "First slide" },
      { kind: "list", text: "- first bullet\n- second bullet" },
    ]);
  });

  it("reads officeParser's HTML like its reference text", async () => {
    const document = await parseFile(htmlParser, `${CORPUS_DIR}/officeParser/files/test.html`);
    expect(document.title).toBe("DOCX Demo");
    const baseline = readFileSync(`${CORPUS_DIR}/officeParser/parser/baseline/test.html.txt`, "utf8");
    expect(shareOfWordsFound(baseline, document)).toBeGreaterThan(0.98);
  });

  it("reads officeParser's exhaustive HTML with all six heading levels", async () => {
    const document = await parseFile(htmlParser, `${CORPUS_DIR}/officeParser/files/exhaustive/html.html`);
    expect(document.blocks.filter((block) => block.kind === "heading").map((block) => block.level)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(allText(document)).toContain("Blockquote paragraph content.");
  });

  it("reads pandoc's HTML reader test page", async () => {
    const document = await parseFile(htmlParser, `${CORPUS_DIR}/pandoc/html-reader.html`);
    expect(document.title).toBe("Pandoc Test Suite");
    expect(allText(document)).toContain("This is a set of tests for pandoc.");
  });
});
