/** A path or value as a POSIX shell reads it back: bare when safe, else in single quotes. */
export function quoteForShell(text: string): string {
  return /^[\w./~+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
