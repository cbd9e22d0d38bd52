import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Every run: the shared test data checked, then one temporary folder for the run (removed at its end). */
export default function setup(): () => void {
  checkSharedTestData();
  return runTempFolder();
}

/**
 * Every folder and file the tests make in the temporary folder (homes, documents, servers'
 * files), theirs and the CLI processes' they start, goes into one folder of the run's, removed
 * when the run ends: each run used to leave a few hundred folders in /tmp. TMPDIR is what
 * os.tmpdir() reads, in vitest's workers and the processes they start. The first project's setup
 * makes it; the others of the same run use it.
 */
function runTempFolder(): () => void {
  if (process.env.CHUNKPAD_TEST_RUN_TMPDIR !== undefined) return () => {};
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-test-run-"));
  // Others may pass through (not list it): Debian's PostgreSQL runs as the postgres user on a cluster in here.
  fs.chmodSync(folder, 0o711);
  process.env.CHUNKPAD_TEST_RUN_TMPDIR = folder;
  process.env.TMPDIR = folder;
  return () => fs.rmSync(folder, { recursive: true, force: true });
}

/**
 * The tests read real documents, retrieval collections and fixture models from the shared test
 * data beside the clone (`../shared`: corpus/, ir/, models/). Without it every such test would
 * fail on its own with a missing file; this says once what is missing and what to do.
 * CHUNKPAD_SHARED_DIR points elsewhere (used to test this very message).
 */
function checkSharedTestData(): void {
  const shared = path.resolve(process.env.CHUNKPAD_SHARED_DIR ?? path.join(import.meta.dirname, "..", "..", "shared"));
  const missing = ["corpus", "ir", "models"].filter((name) => !fs.existsSync(path.join(shared, name)));
  if (missing.length === 0) return;
  throw new Error(
    `The tests need Chunkpad's shared test data at ${shared} (missing: ${missing.map((name) => `${name}/`).join(", ")}). ` +
      "Put the shared folder (corpus/, ir/, models/) beside this clone, as ../shared, and run the tests again.",
  );
}
