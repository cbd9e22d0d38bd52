import { describe, expect, it } from "vitest";
import { isChunkpadError } from "../core/errors.js";
import { attribute, childElements, decodeXml, findAll, findFirst, parseXml, textContent, walkXml } from "./xml.js";

describe("parseXml", () => {
  it("keeps mixed content in order and matches names whatever the prefix", () => {
    const root = parseXml(
      `<?xml version="1.0"?><w:document xmlns:w="urn:w"><w:body><w:p><w:r><w:t>Fish &amp; chips</w:t></w:r><w:r><w:t xml:space="preserve"> and peas</w:t></w:r></w:p><x:p xmlns:x="urn:w"><x:t>Second</x:t></x:p></w:body></w:document>`,
    );
    expect(root.local).toBe("document");
    const paragraphs = findAll(root, "p");
    expect(paragraphs.map(textContent)).toEqual(["Fish & chips and peas", "Second"]);
    expect(childElements(findFirst(root, "body") ?? root).map((element) => element.name)).toEqual(["w:p", "x:p"]);
  });

  it("finds attributes by local name", () => {
    const root = parseXml(`<text:h xmlns:text="urn:t" text:outline-level="3" plain="yes">Title</text:h>`);
    expect(attribute(root, "outline-level")).toBe("3");
    expect(attribute(root, "plain")).toBe("yes");
    expect(attribute(root, "missing")).toBeUndefined();
  });

  it("reads CDATA as text", () => {
    expect(textContent(parseXml("<a><![CDATA[x < y]]></a>"))).toBe("x < y");
  });

  it("calls a part with no element at all malformed", () => {
    let error: unknown;
    try {
      parseXml("just text", "content.xml");
    } catch (caught) {
      error = caught;
    }
    expect(isChunkpadError(error, "PARSE_MALFORMED")).toBe(true);
    expect((error as Error).message).toContain("content.xml");
  });
});

describe("decodeXml", () => {
  it("honours byte order marks and the declared encoding", () => {
    const utf8WithBom = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from("<a>é</a>", "utf8")]);
    expect(decodeXml(utf8WithBom)).toBe("<a>é</a>");
    const utf16 = new Uint8Array([0xff, 0xfe, ...Buffer.from("<a>ü</a>", "utf16le")]);
    expect(decodeXml(utf16)).toBe("<a>ü</a>");
    const latin1 = new Uint8Array(Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?><a>\u00e9</a>`, "latin1"));
    expect(decodeXml(latin1)).toContain("<a>é</a>");
  });
});

describe("walkXml", () => {
  it("stops early when asked", () => {
    const rows = Array.from({ length: 200_000 }, (_, index) => `<row n="${index}"/>`).join("");
    let seen = 0;
    walkXml(`<sheet>${rows}</sheet>`, { onOpen: (element) => void (element.local === "row" && seen++) }, () => seen > 10);
    expect(seen).toBeGreaterThan(10);
    expect(seen).toBeLessThan(200_000);
  });
});
