import { strFromU8, strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { corpusBytes } from "../../test/helpers/parse.js";
import { chunkpadThrown } from "../../test/helpers/rejection.js";
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from "../core/types.js";
import { openZip, type ZipArchive } from "./zip.js";

const MEGABYTE = 1024 * 1024;

function readAll(zip: ZipArchive): void {
  for (const entry of zip.entries) zip.read(entry.name);
}

/** Text that deflates about as well as prose (a few times), never like a bomb. */
function proseBytes(length: number): Uint8Array {
  const words = ["alpha", "river", "stone", "quiet", "market", "ledger", "window", "harbor", "copper", "signal", "meadow", "lantern"];
  let seed = 7;
  let text = "";
  while (text.length < length) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    text += `${words[seed % words.length]}${seed % 97} `;
  }
  return strToU8(text.slice(0, length));
}

/** Rewrites the uncompressed size an archive declares for every entry (local and central headers). */
function lieAboutSizes(zip: Uint8Array, declaredSize: number): Uint8Array {
  const copy = new Uint8Array(zip);
  const view = new DataView(copy.buffer);
  for (let offset = 0; offset + 4 <= copy.byteLength; offset++) {
    const signature = view.getUint32(offset, true);
    if (signature === 0x04034b50) view.setUint32(offset + 22, declaredSize, true);
    if (signature === 0x02014b50) view.setUint32(offset + 24, declaredSize, true);
  }
  return copy;
}

describe("openZip", () => {
  it("reads deflated and stored entries by name, ignoring case and a leading slash", () => {
    const archive = zipSync({
      "word/document.xml": strToU8("<w:document>hello</w:document>"),
      "Stored.txt": [strToU8("kept as is"), { level: 0 }],
    });
    const zip = openZip(archive, { limits: DEFAULT_PARSE_LIMITS });
    expect(zip.entries.map((entry) => entry.name).sort()).toEqual(["Stored.txt", "word/document.xml"]);
    expect(strFromU8(zip.read("word/document.xml") ?? new Uint8Array())).toBe("<w:document>hello</w:document>");
    expect(strFromU8(zip.read("/stored.TXT") ?? new Uint8Array())).toBe("kept as is");
    expect(zip.has("WORD/Document.xml")).toBe(true);
    expect(zip.read("word/missing.xml")).toBeUndefined();
    expect(zip.inflatedBytes).toBe("<w:document>hello</w:document>".length + "kept as is".length);
  });

  it("counts the bytes it actually inflates, whatever sizes the archive declares", () => {
    const content = proseBytes(2 * MEGABYTE);
    const lying = lieAboutSizes(zipSync({ "big.xml": content }), 10);
    expect(openZip(lying, { limits: DEFAULT_PARSE_LIMITS }).entries[0]?.declaredSize).toBe(10);

    const roomy = openZip(lying, { limits: { ...DEFAULT_PARSE_LIMITS, maxDecompressedBytes: 3 * MEGABYTE } });
    expect(roomy.read("big.xml")?.byteLength).toBe(content.byteLength);

    const tight: ParseLimits = { ...DEFAULT_PARSE_LIMITS, maxDecompressedBytes: MEGABYTE };
    const error = chunkpadThrown(() => openZip(lying, { limits: tight }).read("big.xml"));
    expect(error.code).toBe("PARSE_ZIP_BOMB");
    expect(error.message).toContain("1 MB");
    expect(error.message).toContain("ingest.maxDecompressedMb");
  });

  it("applies the decompressed-size limit to the total over all entries read", () => {
    const archive = zipSync({ "a.xml": proseBytes(600 * 1024), "b.xml": proseBytes(600 * 1024) });
    const zip = openZip(archive, { limits: { ...DEFAULT_PARSE_LIMITS, maxDecompressedBytes: MEGABYTE } });
    expect(zip.read("a.xml")?.byteLength).toBe(600 * 1024);
    expect(chunkpadThrown(() => zip.read("b.xml")).code).toBe("PARSE_ZIP_BOMB");
  });

  it("stops the corpus zip bombs early, with bounded memory", () => {
    for (const bomb of ["large_size_archive.docx", "oversized_archive.docx"]) {
      const data = corpusBytes(`officeParser/files/${bomb}`);
      const before = process.memoryUsage().arrayBuffers;
      const error = chunkpadThrown(() => readAll(openZip(data, { limits: DEFAULT_PARSE_LIMITS })));
      const grown = process.memoryUsage().arrayBuffers - before;
      expect(error.code).toBe("PARSE_ZIP_BOMB");
      expect(error.message).toContain("word/document.xml");
      // The bombs declare 600 MB and 100 MB; reading them whole would show here.
      expect(grown).toBeLessThan(64 * MEGABYTE);
    }
  });

  it("refuses an archive with more entries than the limit before inflating anything", () => {
    const error = chunkpadThrown(() => openZip(corpusBytes("officeParser/files/many_entries_archive.docx"), { limits: DEFAULT_PARSE_LIMITS }));
    expect(error.code).toBe("PARSE_ZIP_BOMB");
    expect(error.message).toContain("5000");
    expect(error.message).toContain("ingest.maxArchiveEntries");
    const roomy = openZip(corpusBytes("officeParser/files/many_entries_archive.docx"), { limits: { ...DEFAULT_PARSE_LIMITS, maxArchiveEntries: 20_000 } });
    expect(roomy.entries.length).toBe(10_006);
  });

  it("calls an empty zip, a truncated zip and a non-zip malformed", () => {
    expect(chunkpadThrown(() => openZip(corpusBytes("mammoth.js/empty.zip"), { limits: DEFAULT_PARSE_LIMITS })).code).toBe("PARSE_MALFORMED");
    expect(openZip(corpusBytes("mammoth.js/hello.zip"), { limits: DEFAULT_PARSE_LIMITS }).entries.map((entry) => entry.name)).toEqual(["hello"]);

    const whole = corpusBytes("officeParser/files/test.docx");
    const truncated = chunkpadThrown(() => openZip(whole.subarray(0, whole.byteLength / 2), { limits: DEFAULT_PARSE_LIMITS }));
    expect(truncated.code).toBe("PARSE_MALFORMED");
    expect(truncated.message).toMatch(/truncated/);

    const text = chunkpadThrown(() => openZip(strToU8("just some text, not an archive at all"), { limits: DEFAULT_PARSE_LIMITS }));
    expect(text.code).toBe("PARSE_MALFORMED");
    expect(text.message).toMatch(/not a zip archive/);

    const encrypted = chunkpadThrown(() => openZip(corpusBytes("msoffcrypto-tool/inputs/example_password.docx"), { limits: DEFAULT_PARSE_LIMITS }));
    expect(encrypted.code).toBe("PARSE_MALFORMED");
    expect(encrypted.message).toMatch(/password/);
  });

  it("calls an entry whose compressed data is damaged malformed", () => {
    const archive = zipSync({ "part.xml": proseBytes(50_000) });
    const view = new DataView(archive.buffer);
    const dataStart = 30 + view.getUint16(26, true) + view.getUint16(28, true);
    archive.fill(0xff, dataStart, dataStart + 64);
    const error = chunkpadThrown(() => openZip(archive, { limits: DEFAULT_PARSE_LIMITS }).read("part.xml"));
    expect(error.code).toBe("PARSE_MALFORMED");
    expect(error.message).toContain("part.xml");
  });

  it("stops with PARSE_TIMEOUT once the time limit has passed", () => {
    const zip = openZip(zipSync({ "part.xml": proseBytes(10_000) }), { limits: DEFAULT_PARSE_LIMITS, signal: AbortSignal.abort() });
    expect(chunkpadThrown(() => zip.read("part.xml")).code).toBe("PARSE_TIMEOUT");
  });

  it("in strict mode (Chunkpad's own archives) trades the ratio guard for absolute limits and checks every entry's size and CRC-32", () => {
    const repetitive = strToU8("INFO heartbeat ok\n".repeat(600_000));
    const archive = zipSync({ "log.txt": repetitive });
    const strict = { limits: { ...DEFAULT_PARSE_LIMITS, maxDecompressedBytes: 64 * MEGABYTE }, strict: { maxEntryBytes: 16 * MEGABYTE } };
    expect(chunkpadThrown(() => openZip(archive, { limits: strict.limits }).read("log.txt")).message).toMatch(/250 times/);
    expect(openZip(archive, strict).read("log.txt")?.byteLength).toBe(repetitive.byteLength);

    const small = { ...strict, strict: { maxEntryBytes: MEGABYTE } };
    expect(chunkpadThrown(() => openZip(archive, small).read("log.txt")).message).toMatch(/past the limit of 1 MB for one entry/);
    // Declared sizes that lie are caught too, whichever way they lie.
    expect(chunkpadThrown(() => openZip(lieAboutSizes(archive, 10), strict).read("log.txt")).message).toMatch(/holds \d+ bytes where its header says 10/);

    const stored = zipSync({ "note.txt": [strToU8("the heron waits"), { level: 0 }] });
    const at = stored.indexOf("h".charCodeAt(0), 30);
    const flipped = new Uint8Array(stored);
    flipped[at] = "H".charCodeAt(0);
    expect(openZip(flipped, { limits: DEFAULT_PARSE_LIMITS }).read("note.txt")).toBeDefined();
    expect(chunkpadThrown(() => openZip(flipped, strict).read("note.txt")).message).toMatch(/does not match its checksum \(CRC-32\)/);
  });
});
