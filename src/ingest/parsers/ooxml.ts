import { ChunkpadError } from "../../core/errors.js";
import type { ParseInput } from "../../core/types.js";
import { attribute, childElements, collapseSpace, findFirst, parseXml, textContent, type XmlElement } from "../xml.js";
import { openZip, type ZipArchive } from "../zip.js";

/**
 * What DOCX, PPTX and XLSX share: the OPC package (parts, relationships, the main part) and
 * the core properties' title.
 */
export interface Relationship {
  id: string;
  /** The relationship type's last path segment ("slide", "officeDocument", "notesSlide"). */
  type: string;
  /** Part path inside the package, resolved against the source part; the raw target when external. */
  target: string;
  external: boolean;
}

/** Opens the package; a file that is not a zip, or is a bomb, fails here before any parsing. */
export function openPackage(input: ParseInput): ZipArchive {
  return openZip(input.data, { limits: input.limits, signal: input.signal });
}

export function readXmlPart(zip: ZipArchive, partName: string): XmlElement | undefined {
  const bytes = zip.read(partName);
  return bytes ? parseXml(bytes, partName) : undefined;
}

/** The relationships of a part ("" for the package's own), keyed by id. */
export function readRelationships(zip: ZipArchive, partName: string): Map<string, Relationship> {
  const slash = partName.lastIndexOf("/");
  const directory = slash < 0 ? "" : partName.slice(0, slash);
  const fileName = partName.slice(slash + 1);
  const relationshipsPath = `${directory ? `${directory}/` : ""}_rels/${fileName}.rels`;
  const root = readXmlPart(zip, relationshipsPath);
  const relationships = new Map<string, Relationship>();
  if (!root) return relationships;
  for (const element of childElements(root, "Relationship")) {
    const id = attribute(element, "Id");
    const target = attribute(element, "Target");
    if (!id || target === undefined) continue;
    const external = attribute(element, "TargetMode") === "External";
    const type = (attribute(element, "Type") ?? "").split("/").pop() ?? "";
    relationships.set(id, { id, type, external, target: external ? target : resolvePartPath(directory, target) });
  }
  return relationships;
}

/** The main part (word/document.xml, ppt/presentation.xml...) the package root points at. */
export function mainPartPath(zip: ZipArchive, fallback: string): string | undefined {
  for (const relationship of readRelationships(zip, "").values()) {
    if (relationship.type === "officeDocument" && !relationship.external && zip.has(relationship.target)) return relationship.target;
  }
  return zip.has(fallback) ? fallback : undefined;
}

/** Throws the "not this format" error when the package has no main part. */
export function requireMainPart(zip: ZipArchive, fallback: string, formatLabel: string): string {
  const main = mainPartPath(zip, fallback);
  if (main) return main;
  throw new ChunkpadError(
    "PARSE_MALFORMED",
    `The file is a zip archive but not a ${formatLabel} (it has no ${fallback}); check the file or rename it to its real type.`,
  );
}

/** dc:title from docProps/core.xml, when the author set one. */
export function readCoreTitle(zip: ZipArchive): string | undefined {
  const core = readXmlPart(zip, "docProps/core.xml");
  const title = core ? findFirst(core, "title") : undefined;
  const text = title ? collapseSpace(textContent(title)) : "";
  return text || undefined;
}

/** Resolves a relationship target ("../media/a.png", "/ppt/slides/slide1.xml") to a part path. */
export function resolvePartPath(directory: string, target: string): string {
  const decoded = safeDecode(target.split("#")[0] ?? "");
  const segments = decoded.startsWith("/") ? [] : directory.split("/").filter(Boolean);
  for (const segment of decoded.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return segments.join("/");
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
