import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { openMainStore } from "../store/index.js";
import { checkOwner, claimFolder, otherOwner, thisMachine } from "./folder-owner.js";

const made: string[] = [];
const tempDir = () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-owner-"));
  made.push(directory);
  return directory;
};
afterEach(() => {
  for (const directory of made.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
});

it("keeps one machine id in the data folder, private, and takes CHUNKPAD_MACHINE_ID / _NAME over it", () => {
  const data = path.join(tempDir(), "data");
  const first = thisMachine(data, {});
  expect(first.id).toMatch(/^[0-9a-f-]{36}$/);
  expect(first.name).toBe(os.hostname());
  expect(thisMachine(data, {})).toEqual(first);
  expect(fs.statSync(path.join(data, "machine-id")).mode & 0o777).toBe(0o600);
  expect(thisMachine(data, { CHUNKPAD_MACHINE_ID: "build-7", CHUNKPAD_MACHINE_NAME: "ci" })).toEqual({ id: "build-7", name: "ci" });
});

it("records a folder's owner in the store; another machine is refused with the owner's name and the way to take it over", async () => {
  const store = openMainStore({ path: path.join(tempDir(), "chunkpad.db") });
  try {
    const folder = await store.upsertFolder("/srv/docs", "/srv/docs/_chunks");
    const alice = { id: "a-1", name: "alice-laptop" };
    const bob = { id: "b-2", name: "bob-desktop" };
    // A folder from before owners belongs to nobody: every machine may process it.
    await expect(checkOwner(store, folder, bob, "process")).resolves.toBeUndefined();
    await claimFolder(store, folder.id, alice);
    expect(await otherOwner(store, folder.id, alice)).toBeNull();
    expect(await otherOwner(store, folder.id, bob)).toMatchObject({ id: "a-1", name: "alice-laptop" });
    await expect(checkOwner(store, folder, bob, "process")).rejects.toMatchObject({
      code: "FOLDER_ELSEWHERE",
      message: expect.stringMatching(/\/srv\/docs belongs to the machine "alice-laptop".*only that machine can process it/),
      nextSteps: [{ action: "take-over", folder: "/srv/docs" }],
    });
  } finally {
    await store.close();
  }
});
