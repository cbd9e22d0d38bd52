import { describe, expect, it } from "vitest";
import { decodeText } from "./text-encoding.js";

const SAMPLE = "Grüße, café — 日本語 🙂";

function utf16(text: string, endian: "le" | "be"): Uint8Array {
  const bytes = new Uint8Array(text.length * 2);
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    bytes[index * 2 + (endian === "le" ? 0 : 1)] = code & 0xff;
    bytes[index * 2 + (endian === "le" ? 1 : 0)] = code >> 8;
  }
  return bytes;
}

function utf32(text: string, endian: "le" | "be"): Uint8Array {
  const points = Array.from(text, (character) => character.codePointAt(0) ?? 0);
  const bytes = new Uint8Array(points.length * 4);
  const view = new DataView(bytes.buffer);
  points.forEach((point, index) => view.setUint32(index * 4, point, endian === "le"));
  return bytes;
}

const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(parts.flatMap((part) => Array.from(part)));

describe("decodeText", () => {
  it.each([
    ["utf-8", concat(new Uint8Array([0xef, 0xbb, 0xbf]), new TextEncoder().encode(SAMPLE))],
    ["utf-16le", concat(new Uint8Array([0xff, 0xfe]), utf16(SAMPLE, "le"))],
    ["utf-16be", concat(new Uint8Array([0xfe, 0xff]), utf16(SAMPLE, "be"))],
    ["utf-32le", concat(new Uint8Array([0xff, 0xfe, 0x00, 0x00]), utf32(SAMPLE, "le"))],
    ["utf-32be", concat(new Uint8Array([0x00, 0x00, 0xfe, 0xff]), utf32(SAMPLE, "be"))],
  ])("reads %s by its byte order mark, without the mark in the text", (encoding, bytes) => {
    expect(decodeText(bytes)).toEqual({ text: SAMPLE, encoding });
  });

  it.each([
    ["utf-16le", "le"],
    ["utf-16be", "be"],
  ] as const)("recognises BOM-less %s by its NUL bytes", (encoding, endian) => {
    const text = "Plain English notes\r\nsaved by an old Windows editor, café.";
    expect(decodeText(utf16(text, endian))).toEqual({ text, encoding });
  });

  it("reads BOM-less text that is valid UTF-8 as UTF-8", () => {
    expect(decodeText(new TextEncoder().encode(SAMPLE))).toEqual({ text: SAMPLE, encoding: "utf-8" });
  });

  it("falls back to windows-1252 for legacy 8-bit text", () => {
    // "café" and a curly apostrophe and euro sign as windows-1252 bytes: not valid UTF-8.
    const bytes = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x92, 0x20, 0x80, 0x35]);
    expect(decodeText(bytes)).toEqual({ text: "café ’ €5", encoding: "windows-1252" });
  });

  it("uses a declared charset, reading Latin-1 labels as windows-1252 as browsers do", () => {
    const bytes = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80]);
    expect(decodeText(bytes, { declaredEncoding: "ISO-8859-1" })).toEqual({ text: "café €", encoding: "windows-1252" });
    const cyrillic = new Uint8Array([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]);
    expect(decodeText(cyrillic, { declaredEncoding: "windows-1251" }).text).toBe("Привет");
  });

  it("lets a byte order mark win over a declared charset", () => {
    const bytes = concat(new Uint8Array([0xef, 0xbb, 0xbf]), new TextEncoder().encode("café"));
    expect(decodeText(bytes, { declaredEncoding: "windows-1252" })).toEqual({ text: "café", encoding: "utf-8" });
  });

  it("decodes an empty file to an empty string", () => {
    expect(decodeText(new Uint8Array())).toEqual({ text: "", encoding: "utf-8" });
  });
});
