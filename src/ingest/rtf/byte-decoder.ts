import { decodeCodePage, DEFAULT_CODE_PAGE, isLeadByte } from "./code-pages.js";

/**
 * Collects the 8-bit bytes of a run (\'hh escapes and raw bytes) and decodes them together,
 * so a double-byte character written as two escapes becomes one character.
 */
export interface ByteDecoder {
  add(byte: number, codePage: number): void;
  /** Decodes and hands on what is collected; call before anything that is not a byte. */
  flush(): void;
  /** True after a lead byte of a double-byte code page: the next byte, even ASCII, is its trail. */
  readonly awaitingTrailByte: boolean;
}

export function createByteDecoder(emit: (text: string) => void): ByteDecoder {
  let bytes: number[] = [];
  let bytesCodePage = DEFAULT_CODE_PAGE;
  let awaitingTrailByte = false;

  const flush = () => {
    if (bytes.length === 0) return;
    const text = decodeCodePage(Uint8Array.from(bytes), bytesCodePage);
    bytes = [];
    awaitingTrailByte = false;
    emit(text);
  };

  return {
    add(byte, codePage) {
      if (bytes.length > 0 && codePage !== bytesCodePage) flush();
      bytesCodePage = codePage;
      bytes.push(byte);
      awaitingTrailByte = awaitingTrailByte ? false : isLeadByte(codePage, byte);
    },
    flush,
    get awaitingTrailByte() {
      return awaitingTrailByte;
    },
  };
}
