/** Text helpers shared by the markdown parser's two paths (micromark's tree and the line scanner). */

/** Line breaks and runs of spaces inside a block become one space. */
export function collapse(text: string): string {
  return text
    .replace(/[ \t]*\n[ \t]*/g, " ")
    .replace(/[ \t]{2,}/g, " ")
    .trim();
}

/** Pandoc heading attributes: "Title {#id .class}". */
export function stripAttributes(text: string): string {
  return text.replace(/\s*\{[#.][^}]*\}\s*$/, "");
}

/** Lines of a grid or simple table's rules ("+----+", "------ ------"), which carry no text. */
export const TABLE_RULE = /^[ \t]*[-=+:|]{3,}[-=+:| \t]*$/;
