import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isChunkpadError } from "../core/errors.js";
import { createFolderLocks, folderLockKey, type LockHolder } from "./file-locks.js";

let root: string;
let deadPid: number;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-lock-"));
  // A pid that was alive a moment ago and is not any more: what a killed Chunkpad leaves behind.
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  deadPid = child.pid!;
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

let counter = 0;
function setup() {
  const directory = path.join(root, `locks-${++counter}`);
  const folder = path.join(root, `folder-${counter}`);
  fs.mkdirSync(folder);
  const lockFile = path.join(directory, `${folderLockKey(folder)}.lock`);
  // Two lock sets stand for two processes: each acquisition is its own, whatever the pid.
  const first = createFolderLocks({ directory, command: "first", pollMs: 5 });
  const second = createFolderLocks({ directory, command: "second", pollMs: 5 });
  return { directory, folder, lockFile, first, second };
}

function writeLock(lockFile: string, holder: Partial<LockHolder>): void {
  fs.mkdirSync(path.dirname(lockFile), { recursive: true });
  fs.writeFileSync(lockFile, JSON.stringify({ pid: process.pid, hostname: os.hostname(), command: "old", folder: "x", startedAt: new Date().toISOString(), token: "old-token", ...holder }));
}

async function busy(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isChunkpadError(error, "FOLDER_BUSY"), String(error)).toBe(true);
  return error as Error;
}

describe("folder locks", () => {
  it("writes who holds the lock, and removes the file on release", async () => {
    const { folder, lockFile, first } = setup();
    const release = await first.acquire([folder], { purpose: "processing" });
    const holder = JSON.parse(fs.readFileSync(lockFile, "utf8")) as LockHolder;
    expect(holder).toMatchObject({ pid: process.pid, hostname: os.hostname(), command: "first processing", folder: path.resolve(folder) });
    release();
    expect(fs.existsSync(lockFile)).toBe(false);
    expect(fs.existsSync(path.dirname(lockFile))).toBe(false);
  });

  it("refuses a second writer with FOLDER_BUSY naming the holder, when told not to wait", async () => {
    const { folder, first, second } = setup();
    const release = await first.acquire([folder], { purpose: "processing" });
    const error = await busy(second.acquire([folder], { wait: false }));
    expect(error.message).toContain(`pid ${process.pid}`);
    expect(error.message).toContain("first processing");
    expect(error.message).toContain("--no-wait");
    release();
    (await second.acquire([folder], { wait: false }))();
  });

  it("waits for the holder, says so once, and goes on when it releases", async () => {
    const { folder, first, second } = setup();
    const release = await first.acquire([folder]);
    const waits: LockHolder[] = [];
    let startedWaiting!: () => void;
    const waiting = new Promise<void>((resolve) => (startedWaiting = resolve));
    let acquired = false;
    const pending = second
      .acquire([folder], {
        onWaiting: (holder) => {
          waits.push(holder);
          startedWaiting();
        },
      })
      .then((releaseSecond) => {
        acquired = true;
        return releaseSecond;
      });
    await waiting;
    expect(acquired).toBe(false);
    release();
    (await pending)();
    expect(waits).toHaveLength(1);
    expect(waits[0]!.command).toBe("first");
  });

  it("takes over the lock of a process that is no longer alive", async () => {
    const { folder, lockFile, second } = setup();
    writeLock(lockFile, { pid: deadPid });
    const release = await second.acquire([folder], { wait: false });
    expect((JSON.parse(fs.readFileSync(lockFile, "utf8")) as LockHolder).command).toBe("second");
    release();
  });

  it("lets exactly one of two racing takers have a stale lock", async () => {
    const { folder, lockFile, directory } = setup();
    writeLock(lockFile, { pid: deadPid });
    // The slow taker judges the lock stale, then pauses while the fast one takes it over.
    let slowJudged!: () => void;
    const judged = new Promise<void>((resolve) => (slowJudged = resolve));
    let letSlowGo!: () => void;
    const gate = new Promise<void>((resolve) => (letSlowGo = resolve));
    const slow = createFolderLocks({ directory, command: "slow", beforeTakeover: () => (slowJudged(), gate) });
    const fast = createFolderLocks({ directory, command: "fast" });
    const slowOutcome = slow.acquire([folder], { wait: false }).then(
      (release) => ({ release }),
      (error: unknown) => ({ error }),
    );
    await judged;
    const releaseFast = await fast.acquire([folder], { wait: false });
    letSlowGo();
    const outcome = await slowOutcome;
    expect("error" in outcome && isChunkpadError(outcome.error, "FOLDER_BUSY"), JSON.stringify(outcome)).toBe(true);
    // The fast taker's lock is in place, and nothing is left over from the slow one's attempt.
    expect((JSON.parse(fs.readFileSync(lockFile, "utf8")) as LockHolder).command).toBe("fast");
    expect(fs.readdirSync(directory)).toEqual([path.basename(lockFile)]);
    releaseFast();
    expect(fs.existsSync(directory)).toBe(false);
  });

  it("trusts a recent lock from another host, and takes over an old one", async () => {
    const { folder, lockFile, directory } = setup();
    const locks = createFolderLocks({ directory, command: "here", foreignStaleMs: 60_000 });
    writeLock(lockFile, { hostname: "elsewhere", pid: deadPid });
    const error = await busy(locks.acquire([folder], { wait: false }));
    expect(error.message).toContain("on elsewhere");
    expect(error.message).toContain(lockFile);
    writeLock(lockFile, { hostname: "elsewhere", startedAt: new Date(Date.now() - 120_000).toISOString() });
    (await locks.acquire([folder], { wait: false }))();
  });

  it("does not remove a lock that was taken over from it", async () => {
    const { folder, lockFile, first } = setup();
    const release = await first.acquire([folder]);
    writeLock(lockFile, { token: "someone-else" });
    release();
    expect(fs.existsSync(lockFile)).toBe(true);
  });

  it("stops waiting when cancelled", async () => {
    const { folder, first, second } = setup();
    const release = await first.acquire([folder]);
    const controller = new AbortController();
    const pending = second.acquire([folder], { signal: controller.signal, onWaiting: () => controller.abort() });
    const error = await pending.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isChunkpadError(error, "CANCELLED")).toBe(true);
    release();
  });

  it("takes several folders all or nothing", async () => {
    const { folder, directory, first, second } = setup();
    const other = path.join(root, `other-${counter}`);
    fs.mkdirSync(other);
    const releaseOther = await first.acquire([other]);
    await busy(second.acquire([folder, other], { wait: false }));
    // The folder it did get before failing on the other is free again.
    expect(fs.readdirSync(directory)).toEqual([`${folderLockKey(other)}.lock`]);
    releaseOther();
    const releaseBoth = await second.acquire([other, folder, folder]);
    expect(fs.readdirSync(directory)).toHaveLength(2);
    releaseBoth();
    expect(fs.existsSync(directory)).toBe(false);
  });
});
