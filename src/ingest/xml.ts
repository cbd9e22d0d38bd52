import { Parser } from "htmlparser2";
import { ChunkpadError } from "../core/errors.js";

/**
 * Small XML helpers for the office parsers: a forgiving tokenizer (htmlparser2 in XML mode, so
 * a sloppy producer's file still reads), a tiny element tree, and lookups by local name, so
 * `w:t`, `a:t` and the Strict OOXML namespaces all match whatever prefix the producer chose.
 */
export interface XmlElement {
  /** The qualified name as written ("text:p"). */
  name: string;
  /** The name without its prefix ("p"). */
  local: string;
  attributes: Record<string, string>;
  children: XmlNode[];
}

export type XmlNode = XmlElement | string;

/** An element as a streaming walk sees it when it opens: no children yet. */
export type XmlTag = Omit<XmlElement, "children">;

export interface XmlHandlers {
  onOpen?(element: XmlTag): void;
  onText?(text: string): void;
  onClose?(local: string, name: string): void;
}

/** Source text handed to the tokenizer at a time, so a caller can stop early. */
const WRITE_STEP_CHARACTERS = 1024 * 1024;

export function localName(name: string): string {
  const colon = name.indexOf(":");
  return colon < 0 ? name : name.slice(colon + 1);
}

/** Bytes of an XML part as text: BOM first, then the declared encoding, then UTF-8. */
export function decodeXml(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder("utf-8").decode(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 200));
  const declared = /^\s*<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/i.exec(head)?.[1];
  if (declared && !/^utf-?8$/i.test(declared)) {
    try {
      return new TextDecoder(declared).decode(bytes);
    } catch {
      // An encoding TextDecoder does not know: UTF-8 is the best guess left.
    }
  }
  return new TextDecoder("utf-8").decode(bytes);
}

/**
 * Streams an XML text through handlers. `shouldStop` is asked between steps: returning true
 * ends the walk early (a capped sheet need not tokenize the rest).
 */
export function walkXml(xml: string, handlers: XmlHandlers, shouldStop?: () => boolean): void {
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        handlers.onOpen?.({ name, local: localName(name), attributes });
      },
      ontext(text) {
        handlers.onText?.(text);
      },
      onclosetag(name) {
        handlers.onClose?.(localName(name), name);
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  for (let offset = 0; offset < xml.length; offset += WRITE_STEP_CHARACTERS) {
    parser.write(xml.slice(offset, offset + WRITE_STEP_CHARACTERS));
    if (shouldStop?.()) return;
  }
  parser.end();
}

/** Parses a whole part into a tree and returns its root element. */
export function parseXml(source: string | Uint8Array, partName = "XML part"): XmlElement {
  const xml = typeof source === "string" ? source : decodeXml(source);
  const document: XmlElement = { name: "#document", local: "#document", attributes: {}, children: [] };
  const stack: XmlElement[] = [document];
  walkXml(xml, {
    onOpen(element) {
      const node: XmlElement = { ...element, children: [] };
      stack[stack.length - 1]?.children.push(node);
      stack.push(node);
    },
    onText(text) {
      const parent = stack[stack.length - 1];
      if (!parent) return;
      const last = parent.children[parent.children.length - 1];
      if (typeof last === "string") parent.children[parent.children.length - 1] = last + text;
      else parent.children.push(text);
    },
    onClose() {
      if (stack.length > 1) stack.pop();
    },
  });
  const root = document.children.find((child): child is XmlElement => typeof child !== "string");
  if (!root) throw new ChunkpadError("PARSE_MALFORMED", `The document's ${partName} is not XML; the file is damaged. Re-save it from its application.`);
  return root;
}

/** An attribute by local name ("outline-level" finds "text:outline-level"). */
export function attribute(element: XmlTag, local: string): string | undefined {
  const exact = element.attributes[local];
  if (exact !== undefined) return exact;
  for (const [name, value] of Object.entries(element.attributes)) {
    if (localName(name) === local) return value;
  }
  return undefined;
}

/** A namespaced attribute by local name ("r:id"), never the element's own unprefixed one ("id"). */
export function prefixedAttribute(element: XmlTag, local: string): string | undefined {
  for (const [name, value] of Object.entries(element.attributes)) {
    if (name.includes(":") && localName(name) === local) return value;
  }
  return undefined;
}

export function childElements(element: XmlElement, local?: string): XmlElement[] {
  return element.children.filter((child): child is XmlElement => typeof child !== "string" && (local === undefined || child.local === local));
}

export function firstChild(element: XmlElement, local: string): XmlElement | undefined {
  return element.children.find((child): child is XmlElement => typeof child !== "string" && child.local === local);
}

/** Descendants with this local name, in document order, not looking inside a match. */
export function findAll(element: XmlElement, local: string): XmlElement[] {
  const found: XmlElement[] = [];
  const visit = (node: XmlElement): void => {
    for (const child of node.children) {
      if (typeof child === "string") continue;
      if (child.local === local) found.push(child);
      else visit(child);
    }
  };
  visit(element);
  return found;
}

export function findFirst(element: XmlElement, local: string): XmlElement | undefined {
  for (const child of element.children) {
    if (typeof child === "string") continue;
    if (child.local === local) return child;
    const inner = findFirst(child, local);
    if (inner) return inner;
  }
  return undefined;
}

/** All text below an element, in order. */
export function textContent(element: XmlElement): string {
  let text = "";
  const visit = (node: XmlElement): void => {
    for (const child of node.children) {
      if (typeof child === "string") text += child;
      else visit(child);
    }
  };
  visit(element);
  return text;
}

/** Collapses runs of whitespace to single spaces and trims. */
export function collapseSpace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
