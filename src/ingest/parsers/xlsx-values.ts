import { attribute, childElements, findFirst, parseXml } from "../xml.js";

/**
 * How an XLSX cell's stored value reads as text: shared strings by index, booleans as
 * TRUE/FALSE, dates (numbers with a date format) as ISO dates, percentages with "%", other
 * numbers without binary noise (0.1 + 0.2 shows as 0.3, as Excel shows it).
 */
export type NumberStyle = "number" | "date" | "percent";

export interface CellFormats {
  /** Style of each cell format (the cell's s attribute indexes this). */
  styles: NumberStyle[];
  date1904: boolean;
}

/** Built-in number formats that are dates or times (ECMA-376 18.8.30, with the CJK ones). */
const BUILT_IN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);
const BUILT_IN_PERCENT_FORMATS = new Set([9, 10]);
/** Excel shows 15 significant digits. */
const SIGNIFICANT_DIGITS = 15;
const MILLISECONDS_PER_DAY = 86_400_000;
/** Day 0 of the 1900 system is 1899-12-30 once Excel's phantom 1900-02-29 is allowed for. */
const EPOCH_1900_MS = Date.UTC(1899, 11, 30);
const EPOCH_1904_MS = Date.UTC(1904, 0, 1);

export function readCellFormats(stylesXml: Uint8Array | undefined, workbookXml: Uint8Array | undefined): CellFormats {
  const date1904 = workbookXml ? /date1904\s*=\s*["'](1|true)["']/i.test(new TextDecoder().decode(workbookXml.subarray(0, 64 * 1024))) : false;
  if (!stylesXml) return { styles: [], date1904 };
  const root = parseXml(stylesXml, "styles.xml");
  const custom = new Map<number, NumberStyle>();
  const formats = findFirst(root, "numFmts");
  for (const format of formats ? childElements(formats, "numFmt") : []) {
    const id = Number(attribute(format, "numFmtId"));
    custom.set(id, styleOfFormatCode(attribute(format, "formatCode") ?? ""));
  }
  const cellFormats = findFirst(root, "cellXfs");
  const styles = (cellFormats ? childElements(cellFormats, "xf") : []).map((format) => {
    const id = Number(attribute(format, "numFmtId") ?? "0");
    return custom.get(id) ?? (BUILT_IN_DATE_FORMATS.has(id) ? "date" : BUILT_IN_PERCENT_FORMATS.has(id) ? "percent" : "number");
  });
  return { styles, date1904 };
}

/** Whether a custom format code shows a date, a percentage or a plain number. */
export function styleOfFormatCode(code: string): NumberStyle {
  // Only the positive section matters; quoted text, escapes and [Red]/[$-409] blocks say nothing.
  const section = (code.split(";")[0] ?? "")
    .replace(/"[^"]*"/g, "")
    .replace(/\\./g, "")
    .replace(/\[(?![hms]+\])[^\]]*\]/gi, "");
  if (/[dmyhs]/i.test(section) && !/^general$/i.test(section.trim())) return "date";
  if (section.includes("%")) return "percent";
  return "number";
}

export function formatNumber(raw: string, style: NumberStyle, date1904: boolean): string {
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(value)) return raw;
  if (style === "date") return formatSerialDate(value, date1904) ?? plainNumber(value);
  if (style === "percent") return `${plainNumber(value * 100)}%`;
  return plainNumber(value);
}

function plainNumber(value: number): string {
  return String(Number.parseFloat(value.toPrecision(SIGNIFICANT_DIGITS)));
}

function formatSerialDate(serial: number, date1904: boolean): string | undefined {
  if (serial < 0 || serial > 2_958_465) return undefined; // past 9999-12-31 is not a date
  // Serials below 61 fall before Excel's phantom leap day and sit one day later on the 1900 epoch.
  const adjusted = !date1904 && serial < 61 ? serial + 1 : serial;
  const milliseconds = Math.round(adjusted * MILLISECONDS_PER_DAY) + (date1904 ? EPOCH_1904_MS : EPOCH_1900_MS);
  const iso = new Date(milliseconds).toISOString();
  const day = Math.floor(serial);
  const hasTime = Math.abs(serial - day) * MILLISECONDS_PER_DAY >= 1000;
  if (day === 0 && hasTime) return iso.slice(11, 19);
  return hasTime ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
}

/** "BC12" → 54 (0-based column index). */
export function columnIndex(reference: string | undefined): number | undefined {
  const letters = reference ? /^([A-Z]{1,3})/i.exec(reference)?.[1] : undefined;
  if (!letters) return undefined;
  let index = 0;
  for (const letter of letters.toUpperCase()) index = index * 26 + (letter.charCodeAt(0) - 64);
  return index - 1;
}
