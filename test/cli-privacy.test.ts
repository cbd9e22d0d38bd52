import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { cliEnv, databaseUrlFor, json, makeTempDir, ON_POSTGRES, runCli, writeFile } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";

/**
 * Private deletion and permissions through the real CLI: what `remove`, a deleted source and
 * `reset` leave on disk, read as raw bytes, and the modes of the files Chunkpad creates.
 */

/** A word found nowhere else, so finding it in a file means the removed text is still there. */
const SECRET_WORD = "zanzibarquokka";
const NO_KEYCHAIN = { CHUNKPAD_KEYCHAIN: "off" };

function novel(word: string): string {
  return Array.from({ length: 120 }, (_, index) => `Chapter ${index}. The ${word} crossed the moor at night and the ${word} hid in the lighthouse.`).join("\n\n");
}

function occurrences(databasePath: string, word: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const suffix of ["", "-wal", "-shm"]) {
    if (!fs.existsSync(`${databasePath}${suffix}`)) continue;
    const bytes = fs.readFileSync(`${databasePath}${suffix}`);
    let count = 0;
    for (let at = bytes.indexOf(word); at >= 0; at = bytes.indexOf(word, at + 1)) count += 1;
    counts[path.basename(`${databasePath}${suffix}`)] = count;
  }
  return counts;
}

const mode = (target: string) => (fs.statSync(target).mode & 0o777).toString(8);

// About SQLite's own files: their modes, and bytes left behind in the file, its -wal and -shm. A
// PostgreSQL server keeps its files itself (and removed rows until VACUUM: the server's to run).
describe.skipIf(ON_POSTGRES)("chunkpad remove and process leave no text of removed documents in the database", () => {
  let home: string;
  let secret: string;
  let kept: string;
  let databasePath: string;

  beforeAll(async () => {
    const previous = process.umask(0o022);
    try {
      home = makeTempDir("privacy-remove");
      secret = path.join(home, "secret");
      kept = path.join(home, "kept");
      writeFile(secret, "novel.txt", novel(SECRET_WORD));
      writeFile(kept, "diary.txt", novel("pelican"));
      writeFile(kept, "letter.txt", novel("ptarmigan"));
      for (const folder of [secret, kept]) {
        const added = await runCliInProcess(["add", folder], { home });
        expect(added.code, added.stderr).toBe(0);
      }
      databasePath = path.join(home, "data", "chunkpad.db");
    } finally {
      process.umask(previous);
    }
  });

  it("creates the data folder 0700 and the database 0600 under umask 022", () => {
    expect(mode(path.join(home, "data"))).toBe("700");
    expect(mode(databasePath)).toBe("600");
  });

  it("after remove, the removed folder's words are nowhere in chunkpad.db, -wal or -shm", async () => {
    expect(occurrences(databasePath, SECRET_WORD)["chunkpad.db"]).toBeGreaterThan(0);
    const removed = await runCliInProcess(["remove", secret], { home });
    expect(removed.code, removed.stderr).toBe(0);
    expect(Object.values(occurrences(databasePath, SECRET_WORD)).every((count) => count === 0)).toBe(true);
    const search = await runCliInProcess(["search", "pelican", "--json"], { home });
    expect(search.stdout).toContain("diary.txt");
  });

  it("after a source is deleted and the folder processed again, its words are gone too", async () => {
    expect(occurrences(databasePath, "ptarmigan")["chunkpad.db"]).toBeGreaterThan(0);
    fs.rmSync(path.join(kept, "letter.txt"));
    const processed = await runCliInProcess(["process", kept], { home });
    expect(processed.code, processed.stderr).toBe(0);
    expect(Object.values(occurrences(databasePath, "ptarmigan")).every((count) => count === 0)).toBe(true);
  });
});

describe("chunkpad reset", () => {
  async function setUp(prefix: string) {
    const home = makeTempDir(prefix);
    const documents = path.join(home, "documents");
    writeFile(documents, "notes.md", "# Notes\n\nThe heron waits by the river.\n");
    const added = await runCliInProcess(["add", documents], { home });
    expect(added.code, added.stderr).toBe(0);
    expect((await runCliInProcess(["config", "set", "search.limit", "7"], { home })).code).toBe(0);
    return { home, documents, chunks: path.join(documents, "_chunks"), data: path.join(home, "data") };
  }
  /** The store as reset names it: the SQLite file, or the PostgreSQL database. */
  const storeOf = (home: string) => (ON_POSTGRES ? databaseUrlFor(home) : path.join(home, "data", "chunkpad.db"));
  const foldersIn = async (home: string) => json<unknown[]>(await runCliInProcess(["folders", "--json"], { home })).length;

  it("refuses without a terminal and without --yes, and deletes nothing", async () => {
    const { home, data } = await setUp("reset-refuse");
    const result = await runCliInProcess(["reset", "--chunk-files"], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--yes/);
    expect(result.stderr).toContain(storeOf(home));
    // machine-id: which machine added the folders (decision 056), a random id that reset keeps.
    // SQLite's -wal and -shm beside chunkpad.db are not ours to count: a store closed in this
    // process keeps them (empty) until its statements are collected, a CLI process removes them as
    // it exits (decision 071).
    const kept = fs.readdirSync(data).filter((name) => !/-(wal|shm)$/.test(name));
    expect(kept.sort()).toEqual([...(ON_POSTGRES ? [] : ["chunkpad.db"]), "folders.json", "machine-id"]);
    expect(await foldersIn(home)).toBe(1);
  });

  // A damaged SQLite file, and (below) an older Chunkpad's SQLite file read for its folders: SQLite's alone.
  it.skipIf(ON_POSTGRES)("with --yes --chunk-files deletes databases, settings and _chunks/ even when chunkpad.db is corrupt, never the documents", async () => {
    const { home, documents, chunks, data } = await setUp("reset-corrupt");
    fs.writeFileSync(path.join(data, "chunkpad.db"), Buffer.alloc(8192, 0x5a));
    const broken = await runCliInProcess(["folders"], { home });
    expect(broken.code).not.toBe(0);

    const result = await runCliInProcess(["reset", "--yes", "--chunk-files"], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(chunks);
    expect(fs.existsSync(path.join(data, "chunkpad.db"))).toBe(false);
    expect(fs.existsSync(path.join(home, "config", "config.json"))).toBe(false);
    expect(fs.existsSync(chunks)).toBe(false);
    expect(fs.readFileSync(path.join(documents, "notes.md"), "utf8")).toContain("heron");
    expect((await runCliInProcess(["folders"], { home })).stdout).toMatch(/No folders yet/);
  });

  it.skipIf(ON_POSTGRES)("finds _chunks/ in a readable database when the folder list beside it is missing (an older Chunkpad)", async () => {
    const { home, chunks, data } = await setUp("reset-salvage");
    fs.rmSync(path.join(data, "folders.json"));
    const result = await runCliInProcess(["reset", "--yes", "--chunk-files", "--json"], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(fs.existsSync(chunks)).toBe(false);
  });

  it("keeps _chunks/ unless asked, and removes stored keys and models only with --keys and --models", async () => {
    const { home, chunks } = await setUp("reset-keys");
    const stored = await runCliInProcess(["keys", "set", "openai"], { home, input: "sk-test-0123456789abcdef\n", env: NO_KEYCHAIN });
    expect(stored.code, stored.stderr).toBe(0);
    const keyFile = path.join(home, "config", "secrets.json");
    expect(mode(keyFile)).toBe("600");
    writeFile(path.join(home, "cache", "models"), "someone/model/config.json", "{}");

    expect((await runCliInProcess(["reset", "--yes"], { home, env: NO_KEYCHAIN })).code).toBe(0);
    expect(fs.existsSync(chunks)).toBe(true);
    expect(fs.existsSync(keyFile)).toBe(true);
    expect(fs.existsSync(path.join(home, "cache", "models"))).toBe(true);

    const all = await runCliInProcess(["reset", "--yes", "--keys", "--models"], { home, env: NO_KEYCHAIN });
    expect(all.code, all.stderr).toBe(0);
    expect(fs.existsSync(keyFile)).toBe(false);
    expect(fs.existsSync(path.join(home, "cache", "models"))).toBe(false);
  });

  it("asks on a terminal, lists what it will delete, and does nothing on no", async () => {
    const { home, data } = await setUp("reset-ask");
    const run = async (answer: string) => {
      const stdin = Object.assign(new PassThrough(), { isTTY: true });
      const stdout = new PassThrough();
      const stderr = Object.assign(new PassThrough(), { isTTY: true });
      let errors = "";
      stderr.on("data", (data: Buffer) => (errors += data.toString()));
      stdout.resume();
      stdin.end(answer);
      const code = await main(["reset"], { stdin, stdout, stderr, env: cliEnv(home) });
      return { code, errors };
    };
    const declined = await run("n\n");
    expect(declined.errors).toContain(storeOf(home));
    expect(declined.errors).toMatch(/Nothing was deleted/);
    expect(fs.existsSync(path.join(data, "chunkpad.db"))).toBe(!ON_POSTGRES);
    expect(await foldersIn(home)).toBe(1);
    expect((await run("y\n")).code).toBe(0);
    expect(fs.existsSync(path.join(data, "chunkpad.db"))).toBe(false);
    expect(await foldersIn(home)).toBe(0);
  });
});

describe("passwords and secrets in output", () => {
  it("warns that --password shows in ps, and never prints a key from the environment in an error", async () => {
    const home = makeTempDir("privacy-password");
    writeFile(home, "documents/a.txt", "plain text\n");
    const result = await runCliInProcess(["add", path.join(home, "documents"), "--password", "hunter2-secret"], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/--password-stdin/);
    expect(result.stdout + result.stderr).not.toContain("hunter2-secret");
  });
});

describe("nothing private becomes readable by others", () => {
  it("gives a private document's chunk file the document's permissions, and narrows it when the document is made private later", async () => {
    const previous = process.umask(0o022);
    try {
      const home = makeTempDir("privacy-modes");
      const folder = path.join(home, "docs");
      fs.mkdirSync(folder);
      fs.writeFileSync(path.join(folder, "diary.txt"), novel("cormorant"), { mode: 0o600 });
      fs.writeFileSync(path.join(folder, "notes.txt"), novel("puffin"));
      const added = await runCliInProcess(["add", folder], { home });
      expect(added.code, added.stderr).toBe(0);
      expect(mode(path.join(folder, "_chunks", "diary.txt.md"))).toBe("600");
      expect(mode(path.join(folder, "_chunks", "notes.txt.md"))).toBe("644");

      fs.chmodSync(path.join(folder, "notes.txt"), 0o600);
      expect((await runCliInProcess(["process", folder], { home })).code).toBe(0);
      expect(mode(path.join(folder, "_chunks", "notes.txt.md"))).toBe("600");
    } finally {
      process.umask(previous);
    }
  });

  it("never indexes Chunkpad's own data folder, even inside an added folder: the key file stays unsearchable", async () => {
    const home = makeTempDir("privacy-data-dir");
    const folder = path.join(home, "projects");
    const state = path.join(folder, "chunkpad-state");
    const env = { ...NO_KEYCHAIN, CHUNKPAD_HOME: state };
    writeFile(folder, "plan.md", "# Plan\n\nThe osprey survey starts in May.\n");
    const key = "sk-proj-zanzibarquokkakey0123456789";
    expect((await runCliInProcess(["keys", "set", "openai"], { home, env, input: `${key}\n` })).code).toBe(0);
    expect(fs.existsSync(path.join(state, "config", "secrets.json"))).toBe(true);

    const added = await runCliInProcess(["add", folder, "--json"], { home, env });
    expect(added.code, added.stderr).toBe(0);
    const report = JSON.parse(added.stdout) as { processed: Array<{ path: string }>; skipped: Array<{ relativePath: string; reason: string }> };
    expect(report.processed.map((file) => file.path)).toEqual(["plan.md"]);
    expect(report.skipped.some((skip) => skip.relativePath.startsWith("chunkpad-state") && /own data/.test(skip.reason))).toBe(true);
    const search = await runCliInProcess(["search", "zanzibarquokkakey0123456789", "--mode", "keyword", "--json"], { home, env });
    expect((JSON.parse(search.stdout) as { results: unknown[] }).results).toEqual([]);
    expect(fs.existsSync(path.join(folder, "_chunks", "chunkpad-state"))).toBe(false);

    // The data folder itself is refused with the reason.
    const refused = await runCliInProcess(["add", path.join(state, "data")], { home, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/inside Chunkpad's own data folder/);
  });

  it('refuses add "" (not the current folder) and absurd --timeout values, with the way out', async () => {
    const home = makeTempDir("privacy-arguments");
    const cwd = path.join(home, "here");
    writeFile(cwd, "private.txt", "Nothing here should be indexed by an empty argument.\n");
    const empty = await runCli(["add", ""], { home, cwd });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/No folder given.*"\." for the current folder/);
    expect(fs.existsSync(path.join(cwd, "_chunks"))).toBe(false);

    writeFile(home, "docs/a.txt", "A small document.\n");
    for (const timeout of ["1e12", "0.001", "0", "-5", "Infinity", "NaN", " "]) {
      const result = await runCliInProcess(["add", path.join(home, "docs"), "--timeout", timeout], { home });
      expect(result.code, timeout).not.toBe(0);
      expect(result.stderr, timeout).toMatch(/--timeout takes a number of seconds from 1 to 86400/);
    }
    expect(fs.existsSync(path.join(home, "docs", "_chunks"))).toBe(false);
    const set = await runCliInProcess(["config", "set", "ingest.perFileTimeoutSeconds", "1e12"], { home });
    expect(set.code).not.toBe(0);
  });
});
