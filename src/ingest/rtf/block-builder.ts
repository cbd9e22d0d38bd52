import type { ParsedBlock } from "../../core/types.js";

/** The paragraph formatting that decides what kind of block a paragraph becomes. */
export interface ParagraphProperties {
  /** \sN: paragraph style number (0 = Normal). */
  style: number;
  /** \outlinelevelN, 0-based; 9 means body text. */
  outlineLevel: number | undefined;
  /** \intbl or \itapN with N > 0. */
  inTable: boolean;
  /** \lsN: list override number, 0 when the paragraph is not a list item. */
  listId: number;
  /** \ilvlN: list nesting level, 0-based. */
  listLevel: number;
}

export interface BlockBuilder {
  appendText(text: string, properties: ParagraphProperties): void;
  endParagraph(properties: ParagraphProperties): void;
  endCell(properties: ParagraphProperties): void;
  endRow(properties: ParagraphProperties): void;
  endNestedCell(properties: ParagraphProperties): void;
  endNestedRow(): void;
  finish(): ParsedBlock[];
}

/** Word writes outline levels 0..8; the blocks carry markdown's 1..6. */
const MAX_HEADING_LEVEL = 6;
const BODY_TEXT_OUTLINE_LEVEL = 9;
const CELL_SEPARATOR = " | ";
/** Nested tables are flattened into their outer cell; their cells get a separator of their own. */
const NESTED_CELL_SEPARATOR = "; ";

interface Shape {
  headingLevel: number | undefined;
  inTable: boolean;
  listId: number;
  listLevel: number;
}

const NO_PROPERTIES: ParagraphProperties = { style: 0, outlineLevel: undefined, inTable: false, listId: 0, listLevel: 0 };

type OpenGroup = { kind: "table"; rows: string[] } | { kind: "list"; listId: number; lastLevel: number; lines: string[] };

/** Drops control characters, trims lines, and folds runs of spaces. */
export function normalizeParagraphText(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "")
    .split("\n")
    .map((line) => line.replace(/ {2,}/g, " ").trim())
    .join("\n")
    .replace(/^\n+|\n+$/g, "");
}

/**
 * Turns the interpreter's stream of text and paragraph, cell and row ends into blocks:
 * headings from outline levels or heading styles, consecutive list items into one list,
 * consecutive table rows into one table of "a | b" lines.
 */
export function createBlockBuilder(styleHeadingLevels: ReadonlyMap<number, number>): BlockBuilder {
  const blocks: ParsedBlock[] = [];
  let parts: string[] = [];
  let shapeAtStart: Shape | undefined;
  let cellParts: string[] = [];
  let cells: string[] = [];
  let nestedCells: string[] = [];
  let open: OpenGroup | undefined;

  const shapeOf = (properties: ParagraphProperties): Shape => {
    const outline = properties.outlineLevel;
    let headingLevel: number | undefined;
    if (outline !== undefined && outline >= 0 && outline < BODY_TEXT_OUTLINE_LEVEL) headingLevel = outline + 1;
    else if (outline === undefined) headingLevel = styleHeadingLevels.get(properties.style);
    return {
      headingLevel: headingLevel === undefined ? undefined : Math.min(headingLevel, MAX_HEADING_LEVEL),
      inTable: properties.inTable,
      listId: properties.listId,
      listLevel: properties.listLevel,
    };
  };

  const closeOpen = () => {
    if (open?.kind === "table") {
      if (cells.length > 0 || cellParts.length > 0) pushRow();
      if (open.rows.length > 0) blocks.push({ kind: "table", text: open.rows.join("\n") });
    } else if (open?.kind === "list" && open.lines.length > 0) {
      blocks.push({ kind: "list", text: open.lines.join("\n") });
    }
    open = undefined;
  };

  const takeParagraph = (properties: ParagraphProperties): { text: string; shape: Shape } => {
    const text = normalizeParagraphText(parts.join(""));
    const shape = shapeAtStart ?? shapeOf(properties);
    parts = [];
    shapeAtStart = undefined;
    return { text, shape };
  };

  const openTable = (): string[] => {
    if (open?.kind !== "table") {
      closeOpen();
      open = { kind: "table", rows: [] };
    }
    return open.rows;
  };

  const flushNestedRow = () => {
    if (nestedCells.some((cell) => cell !== "")) cellParts.push(nestedCells.join(NESTED_CELL_SEPARATOR));
    nestedCells = [];
  };

  const pushCell = () => {
    flushNestedRow();
    cells.push(cellParts.join(" "));
    cellParts = [];
  };

  function pushRow() {
    if (cellParts.length > 0 || nestedCells.length > 0) pushCell();
    const rows = openTable();
    if (cells.some((cell) => cell !== "")) rows.push(cells.join(CELL_SEPARATOR));
    cells = [];
  }

  function endParagraph(properties: ParagraphProperties): void {
    const { text, shape } = takeParagraph(properties);
    if (shape.inTable || properties.inTable) {
      if (text !== "") {
        openTable();
        cellParts.push(text);
      }
      return;
    }
    if (text === "") return;
    if (shape.headingLevel !== undefined) {
      closeOpen();
      blocks.push({ kind: "heading", level: shape.headingLevel, text: text.replace(/\s*\n\s*/g, " ") });
    } else if (shape.listId > 0) {
      // Writers often give each nesting level its own list number; only a new top-level
      // list right after another top-level item starts a new block.
      const continues = open?.kind === "list" && (open.listId === shape.listId || shape.listLevel > 0 || open.lastLevel > 0);
      if (open?.kind !== "list" || !continues) {
        closeOpen();
        open = { kind: "list", listId: shape.listId, lastLevel: 0, lines: [] };
      }
      open.listId = shape.listId;
      open.lastLevel = shape.listLevel;
      open.lines.push(`${"  ".repeat(Math.max(0, shape.listLevel))}- ${text.replace(/\n/g, " ")}`);
    } else {
      closeOpen();
      blocks.push({ kind: "paragraph", text });
    }
  }

  return {
    appendText(text, properties) {
      if (shapeAtStart === undefined && text.trim() !== "") shapeAtStart = shapeOf(properties);
      parts.push(text);
    },
    endParagraph,
    endCell(properties) {
      const { text } = takeParagraph(properties);
      openTable();
      if (text !== "") cellParts.push(text);
      pushCell();
    },
    endRow(properties) {
      const { text } = takeParagraph(properties);
      if (text !== "") cellParts.push(text);
      pushRow();
    },
    endNestedCell(properties) {
      const { text } = takeParagraph(properties);
      openTable();
      nestedCells.push(text);
    },
    endNestedRow() {
      flushNestedRow();
    },
    finish() {
      endParagraph(NO_PROPERTIES);
      closeOpen();
      return blocks;
    },
  };
}
