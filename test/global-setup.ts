import fs from "node:fs";
import path from "node:path";

/**
 * The tests read real documents, retrieval collections and fixture models from the shared test
 * data beside the clone (`../shared`: corpus/, ir/, models/). Without it every such test would
 * fail on its own with a missing file; this says once what is missing and what to do.
 * CHUNKPAD_SHARED_DIR points elsewhere (used to test this very message).
 */
export default function checkSharedTestData(): void {
  const shared = path.resolve(process.env.CHUNKPAD_SHARED_DIR ?? path.join(import.meta.dirname, "..", "..", "shared"));
  const missing = ["corpus", "ir", "models"].filter((name) => !fs.existsSync(path.join(shared, name)));
  if (missing.length === 0) return;
  throw new Error(
    `The tests need Chunkpad's shared test data at ${shared} (missing: ${missing.map((name) => `${name}/`).join(", ")}). ` +
      "Put the shared folder (corpus/, ir/, models/) beside this clone, as ../shared, and run the tests again.",
  );
}
