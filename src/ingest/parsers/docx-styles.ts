import { attribute, childElements, firstChild, parseXml } from "../xml.js";

/**
 * Which paragraph styles of a Word document are headings, and at what level. Word names its
 * built-in heading styles "heading 1".."heading 9" in any UI language; documents also derive
 * their own styles from them ("My heading" based on "heading 2") or mark an outline level.
 */
const MAX_HEADING_LEVEL = 6;
/** basedOn chains longer than this are loops in a damaged file. */
const MAX_STYLE_DEPTH = 20;
/** Word's outline level 9 means body text. */
const BODY_OUTLINE_LEVEL = 9;

interface StyleDefinition {
  name: string;
  basedOn: string | undefined;
  outlineLevel: number | undefined;
}

/** Heading level by paragraph style id, for the styles that are headings. */
export function readHeadingStyles(stylesXml: Uint8Array | undefined): Map<string, number> {
  const levels = new Map<string, number>();
  if (!stylesXml) return levels;
  const definitions = new Map<string, StyleDefinition>();
  for (const style of childElements(parseXml(stylesXml, "styles.xml"), "style")) {
    if (attribute(style, "type") !== "paragraph") continue;
    const id = attribute(style, "styleId");
    if (!id) continue;
    const name = attribute(firstChild(style, "name") ?? style, "val") ?? id;
    const basedOn = attribute(firstChild(style, "basedOn") ?? style, "val");
    const outline = firstChild(style, "pPr");
    const outlineValue = outline ? attribute(firstChild(outline, "outlineLvl") ?? outline, "val") : undefined;
    const outlineLevel = outlineValue === undefined ? undefined : Number.parseInt(outlineValue, 10);
    definitions.set(id, { name, basedOn, outlineLevel: Number.isFinite(outlineLevel) ? outlineLevel : undefined });
  }
  for (const id of definitions.keys()) {
    const level = headingLevel(id, definitions);
    if (level !== undefined) levels.set(id, level);
  }
  return levels;
}

function headingLevel(id: string, definitions: Map<string, StyleDefinition>): number | undefined {
  const chain: StyleDefinition[] = [];
  let current: string | undefined = id;
  while (current !== undefined && chain.length < MAX_STYLE_DEPTH) {
    const definition = definitions.get(current);
    if (!definition) break;
    chain.push(definition);
    current = definition.basedOn;
  }
  // The style's name (or an ancestor's) says it best; an outline level is the fallback.
  for (const definition of chain) {
    const byName = levelFromName(definition.name);
    if (byName !== undefined) return byName;
  }
  for (const definition of chain) {
    const outline = definition.outlineLevel;
    if (outline !== undefined && outline >= 0 && outline < BODY_OUTLINE_LEVEL) return Math.min(outline + 1, MAX_HEADING_LEVEL);
  }
  return undefined;
}

function levelFromName(name: string): number | undefined {
  const normalized = name.trim().toLowerCase();
  if (normalized === "title" || normalized === "toc heading") return 1;
  const match = /^heading\s*([1-9])$/.exec(normalized);
  return match?.[1] ? Math.min(Number(match[1]), MAX_HEADING_LEVEL) : undefined;
}
