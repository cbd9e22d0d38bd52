import { ChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { childElements, findFirst, prefixedAttribute } from "../xml.js";
import { throwIfAborted, type ZipArchive } from "../zip.js";
import { openPackage, readCoreTitle, readRelationships, readXmlPart, requireMainPart, type Relationship } from "./ooxml.js";
import { diagramDataText, shapeTreeBlocks } from "./pptx-shapes.js";

/**
 * PPTX (and .pptm/.ppsx): slides in presentation order (p:sldIdLst), each slide's shapes in
 * order, its title as a heading, then its speaker notes. Every block carries its 1-based
 * slide number, like the seed's slide_number.
 */
export const pptxParser: Parser = {
  name: "pptx",
  extensions: [".pptx", ".pptm", ".ppsx", ".potx"],
  async parse(input: ParseInput): Promise<ParsedDocument> {
    const zip = openPackage(input);
    const mainPart = requireMainPart(zip, "ppt/presentation.xml", "PowerPoint presentation");
    const slidePaths = slideOrder(zip, mainPart);

    const blocks: ParsedBlock[] = [];
    const warnings: string[] = [];
    slidePaths.forEach((slidePath, index) => {
      throwIfAborted(input.signal);
      const slide = index + 1;
      const slideRoot = readXmlPart(zip, slidePath);
      if (!slideRoot) {
        warnings.push(`Slide ${slide} is missing from the file (${slidePath}); its text was skipped.`);
        return;
      }
      const relationships = readRelationships(zip, slidePath);
      const tree = findFirst(slideRoot, "spTree");
      const context = { diagramText: (id: string) => diagramLines(zip, relationships.get(id)) };
      for (const block of tree ? shapeTreeBlocks(tree, context) : []) blocks.push({ ...block, slide });
      for (const block of speakerNotes(zip, relationships)) blocks.push({ ...block, slide });
    });

    if (blocks.length === 0) throw new ChunkpadError("PARSE_EMPTY", "The presentation has no text (its slides hold only pictures or are empty); there is nothing to index.");
    const title = readCoreTitle(zip) ?? blocks.find((block) => block.kind === "heading")?.text;
    return { ...(title ? { title } : {}), blocks, pageCount: slidePaths.length, warnings };
  },
};

/** Slide part paths in the order the presentation shows them. */
function slideOrder(zip: ZipArchive, mainPart: string): string[] {
  const relationships = readRelationships(zip, mainPart);
  const presentation = readXmlPart(zip, mainPart);
  const list = presentation ? findFirst(presentation, "sldIdLst") : undefined;
  const ordered = (list ? childElements(list, "sldId") : [])
    .map((slideId) => relationships.get(prefixedAttribute(slideId, "id") ?? ""))
    .filter((relationship): relationship is Relationship => relationship !== undefined && !relationship.external)
    .map((relationship) => relationship.target);
  if (ordered.length > 0) return ordered;
  // No slide list: fall back to the slide relationships, by the number in their names.
  return [...relationships.values()]
    .filter((relationship) => relationship.type === "slide" && !relationship.external)
    .map((relationship) => relationship.target)
    .sort((left, right) => slideNumberOf(left) - slideNumberOf(right));
}

function slideNumberOf(partPath: string): number {
  return Number(/(\d+)\.xml$/i.exec(partPath)?.[1] ?? Number.MAX_SAFE_INTEGER);
}

function diagramLines(zip: ZipArchive, relationship: Relationship | undefined): string[] {
  if (!relationship || relationship.external) return [];
  const data = readXmlPart(zip, relationship.target);
  return data ? diagramDataText(data) : [];
}

/** The notes page's body text; its slide image and number placeholders are skipped. */
function speakerNotes(zip: ZipArchive, relationships: Map<string, Relationship>): ParsedBlock[] {
  const notes = [...relationships.values()].find((relationship) => relationship.type === "notesSlide" && !relationship.external);
  if (!notes) return [];
  const root = readXmlPart(zip, notes.target);
  const tree = root ? findFirst(root, "spTree") : undefined;
  if (!tree) return [];
  return shapeTreeBlocks(tree, { placeholderBullets: false }).map((block) => {
    const { level: _level, ...rest } = block;
    return { ...rest, kind: block.kind === "heading" ? "paragraph" : block.kind };
  });
}
