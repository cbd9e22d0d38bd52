import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileDurably, writeFileDurablySync } from "./durable-write.js";

const temporaryDirectory = () => fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-durable-"));

describe("durable writes (chunk files, config, key file)", () => {
  it("replaces the file whole, creates folders, and leaves no temporary file behind", async () => {
    const directory = temporaryDirectory();
    const target = path.join(directory, "deep", "er", "file.md");
    await writeFileDurably(target, "first");
    await writeFileDurably(target, "second");
    writeFileDurablySync(path.join(directory, "config.json"), "{}\n");
    expect(fs.readFileSync(target, "utf8")).toBe("second");
    expect(fs.readFileSync(path.join(directory, "config.json"), "utf8")).toBe("{}\n");
    expect(fs.readdirSync(path.dirname(target))).toEqual(["file.md"]);
  });

  it("gives the new file the mode asked for (the key file is readable by its owner only)", () => {
    if (process.platform === "win32") return;
    const target = path.join(temporaryDirectory(), "secrets.json");
    writeFileDurablySync(target, "{}", { mode: 0o600 });
    expect(fs.statSync(target).mode & 0o777).toBe(0o600);
  });

  it("replaces a symlink at the target instead of writing through it", async () => {
    const directory = temporaryDirectory();
    const elsewhere = path.join(temporaryDirectory(), "elsewhere.txt");
    fs.writeFileSync(elsewhere, "untouched");
    const target = path.join(directory, "link.md");
    fs.symlinkSync(elsewhere, target);
    await writeFileDurably(target, "new text");
    expect(fs.lstatSync(target).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(elsewhere, "utf8")).toBe("untouched");
  });
});
