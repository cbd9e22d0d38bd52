import os from "node:os";
import { defineConfig } from "vitest/config";

/** The real-document corpus and OCR: slow, so in their own project (`npm run test:corpus`). */
const CORPUS_TESTS = ["src/ingest/corpus-*.test.ts", "src/ingest/extraction-quality.test.ts", "src/ingest/ocr.test.ts", "src/ingest/parsers/conformance.test.ts"];
/** Packs, installs into a temporary prefix and runs it: CI's last step (`npm run test:package`). */
const PACKAGE_TESTS = ["test/package/**/*.test.ts"];
/**
 * The `integration-postgres` project (`npm run test:integration-postgres`, in .ci/run) runs every
 * integration file again with each Chunkpad home's store in a PostgreSQL database of its own, on a
 * PGlite + pgvector server (test/global-setup-postgres.ts), except these files. A test inside a
 * file that is about SQLite itself says so where it is (`it.skipIf(ON_POSTGRES)`, with its reason).
 */
const NOT_ON_POSTGRES = [
  ...PACKAGE_TESTS,
  // Already PostgreSQL's own: they start their own server (PGlite, or Debian's PostgreSQL) and run in `integration`.
  "test/postgres-*.test.ts",
  // A child vitest that checks the shared test data is there, and npm test's script runner: no store.
  "test/shared-data.test.ts",
  "test/side-by-side.test.ts",
  // SQLite's lock files between processes on one machine. PostgreSQL's leases are advisory locks,
  // which PGlite (one session) always grants: they are tested on Debian's server (postgres-server.test.ts).
  "test/cli-lock.test.ts",
  // No store in their subject (decision 082): who can reach the server (its token, cookie and
  // server.json), `serve --open`'s browser, API keys (keychain or file), the LLM providers, the
  // clone's node_modules. Each runs once, in `integration`.
  "test/server-credential.test.ts",
  "test/server-open.test.ts",
  "test/cli-keys.test.ts",
  "test/cli-providers.test.ts",
  "test/clone-footprint.test.ts",
  // What the parsers read (OCR'd scans, legacy Office, mail and sheets) and what reaches stdout
  // under --json, and the API's checks before it touches the disk: each reaches the store only
  // as chunks and search, which cli-process, cli-search and cli-headings run on PostgreSQL.
  "test/cli-ocr.test.ts",
  "test/cli-legacy-formats.test.ts",
  "test/cli-json-stdout.test.ts",
  "test/server-guards.test.ts",
  // The web app's chat and settings in chromium (decision 082). What they ask of the store goes
  // through the API that runs on PostgreSQL in server-http, server-jobs, server-search-ready and
  // server-documents (search, ask, conversations, clearing all data), cli-chat and cli-archive
  // (export and import); settings live in the config file and keys in the keychain. The browser's
  // part is the same on either store; web-app-documents (the tree, chunk edits, uploads) stays.
  "test/web-app-chat.test.ts",
  "test/web-app-settings.test.ts",
  // 300 ClapNQ questions through the keyword retriever: a ranking measure (the store suite and
  // bench/cisi-eval.ts hold PostgreSQL's ranking to SQLite's). On PGlite its tests passed alone
  // (86 s) but ran past their minute beside the other files at load 10-14 (decision 067).
  "test/clapnq.test.ts",
];

export default defineConfig({
  test: {
    bail: 1,
    // Vitest's default is one worker fewer than the cores: one file at a time on CI's 2 cores,
    // while most files wait on child processes, servers or the browser. One per core (decision 053).
    maxWorkers: os.availableParallelism(),
    // A job or a page that settles within 30 s on a busy machine passes; 1 s (the default) made
    // the server's job polls fail whenever another file shared the cores, and 10 s failed a web
    // app's folder job on PostgreSQL with CI's three runs beside other work (load 13; decision
    // 081). A poll that passes returns as soon as its check does: only a failure waits longer.
    expect: { poll: { timeout: 30_000 } },
    globalSetup: ["test/global-setup.ts"],
    // A limit catches a hang; nothing here waits on anything but its own CPU, its child processes
    // and local servers. CI keeps three test runs beside each other on two cores (load 13–20), where
    // single tests took up to 31 s (an embed killed and finished on PostgreSQL) and 42 s (a paged
    // 2 MB document, since made smaller), and a CI host has been several times slower than this
    // machine (decision 092): two minutes, so only a hang reaches it.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    projects: [
      // Unit and integration files run one after another in each worker's process (isolate: false),
      // not each in a fresh process that loads vitest and the modules again (decision 073). The six
      // corpus files gain nothing from it (72 → 74 CPU-s): they stay isolated. The PostgreSQL run
      // too: 40 files in 175.6 s instead of 245.7 on an idle machine (decision 077).
      { extends: true, test: { name: "unit", include: ["src/**/*.test.ts"], exclude: CORPUS_TESTS, isolate: false } },
      // OCR runs tesseract for real: a page of text costs 5–6 CPU-s, and in CI, beside the PostgreSQL
      // run and the package test (load 13–20), one such test took 35–48 s, another 60 s; on a slower
      // CI host the first passed its 60 s and stopped the run (decision 092).
      { extends: true, test: { name: "corpus", include: CORPUS_TESTS, testTimeout: 180_000 } },
      { extends: true, test: { name: "integration", include: ["test/**/*.test.ts"], exclude: PACKAGE_TESTS, isolate: false } },
      { extends: true, test: { name: "integration-postgres", include: ["test/**/*.test.ts"], exclude: NOT_ON_POSTGRES, isolate: false, globalSetup: ["test/global-setup.ts", "test/global-setup-postgres.ts"], setupFiles: ["test/setup-postgres.ts"] } },
      // npm pack, then a global install from the registry (nothing compiles, decision 071): a minute or two on a busy machine.
      // Its local-model test installs the ONNX runtime into the prefix and embeds: 40 s idle, 79 s at load 14.
      { extends: true, test: { name: "package", include: PACKAGE_TESTS, testTimeout: 300_000, hookTimeout: 1_200_000 } },
    ],
  },
});
