/** One lexical unit of RTF. Text runs point into the input instead of copying it. */
export type RtfToken =
  | { kind: "group-open" }
  | { kind: "group-close" }
  | { kind: "word"; name: string; parameter: number | undefined }
  | { kind: "symbol"; character: string }
  | { kind: "byte"; value: number }
  | { kind: "text"; start: number; end: number }
  | { kind: "end" };

export interface RtfTokenizer {
  next(): RtfToken;
  /** Bytes consumed so far. */
  readonly position: number;
}

/** The RTF spec caps control words at 32 letters and parameters at a signed 16-bit value. */
const MAX_WORD_LETTERS = 32;
const MAX_PARAMETER_DIGITS = 10;

const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const SPACE = 0x20;
const HYPHEN = 0x2d;

const GROUP_OPEN: RtfToken = { kind: "group-open" };
const GROUP_CLOSE: RtfToken = { kind: "group-close" };
const END: RtfToken = { kind: "end" };

function isLetter(byte: number): boolean {
  return (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
}

function isDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x39;
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

/**
 * Splits RTF bytes into tokens. Works on bytes, not a string, because \'hh escapes and raw
 * 8-bit text are in the document's code page and are decoded later. \binN payloads are
 * skipped here so binary data never reads as text or braces.
 */
export function createRtfTokenizer(data: Uint8Array): RtfTokenizer {
  let position = 0;
  const length = data.length;

  const readControl = (): RtfToken => {
    // position is just past the backslash
    if (position >= length) return END;
    const first = data[position] ?? 0;
    if (isLetter(first)) {
      const start = position;
      while (position < length && position - start < MAX_WORD_LETTERS && isLetter(data[position] ?? 0)) position++;
      const name = String.fromCharCode(...data.subarray(start, position));
      let parameter: number | undefined;
      const negative = data[position] === HYPHEN && isDigit(data[position + 1] ?? 0);
      if (negative) position++;
      if (isDigit(data[position] ?? 0)) {
        let value = 0;
        const digitsStart = position;
        while (position < length && isDigit(data[position] ?? 0)) {
          if (position - digitsStart < MAX_PARAMETER_DIGITS) value = value * 10 + ((data[position] ?? 0) - 0x30);
          position++;
        }
        parameter = negative ? -value : value;
      }
      if (data[position] === SPACE) position++;
      if (name === "bin" && parameter !== undefined && parameter > 0) position = Math.min(length, position + parameter);
      return { kind: "word", name, parameter };
    }
    position++;
    if (first === 0x27) {
      // \'hh: one byte in the document's code page
      const high = hexValue(data[position] ?? 0);
      const low = hexValue(data[position + 1] ?? 0);
      if (high < 0 || low < 0) return { kind: "symbol", character: "'" };
      position += 2;
      return { kind: "byte", value: high * 16 + low };
    }
    if (first === 0x0d || first === 0x0a) return { kind: "word", name: "par", parameter: undefined };
    return { kind: "symbol", character: String.fromCharCode(first) };
  };

  return {
    get position() {
      return position;
    },
    next(): RtfToken {
      if (position >= length) return END;
      const byte = data[position] ?? 0;
      if (byte === OPEN_BRACE) {
        position++;
        return GROUP_OPEN;
      }
      if (byte === CLOSE_BRACE) {
        position++;
        return GROUP_CLOSE;
      }
      if (byte === BACKSLASH) {
        position++;
        return readControl();
      }
      const start = position;
      while (position < length) {
        const current = data[position];
        if (current === BACKSLASH || current === OPEN_BRACE || current === CLOSE_BRACE) break;
        position++;
      }
      return { kind: "text", start, end: position };
    },
  };
}
