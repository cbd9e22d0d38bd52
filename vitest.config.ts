import os from "node:os";
import { defineConfig } from "vitest/config";

/** The real-document corpus and OCR: slow, so in their own project (`npm run test:corpus`). */
const CORPUS_TESTS = ["src/ingest/corpus-*.test.ts", "src/ingest/extraction-quality.test.ts", "src/ingest/ocr.test.ts", "src/ingest/parsers/conformance.test.ts"];
/** Packs, installs into a temporary prefix and runs it: CI's last step (`npm run test:package`). */
const PACKAGE_TESTS = ["test/package/**/*.test.ts"];
/**
 * The CLI, server and MCP tests that go through the store, run again against PostgreSQL
 * (`npm run test:integration-postgres`, in .ci/run): each Chunkpad home gets its own database on
 * a PGlite + pgvector server (test/global-setup-postgres.ts). Tests about SQLite's files or
 * about one process's locks say so and skip there.
 */
// test/cli-search.test.ts passes there too (13 of 13) but takes ~100 s on PostgreSQL: left out for CI's time;
// keyword/vector/hybrid behaviour is the store suite's (src/store/postgres/postgres-store.test.ts).
const POSTGRES_INTEGRATION_TESTS = [
  "test/cli-review.test.ts",
  "test/cli-embed.test.ts",
  "test/cli-chat.test.ts",
  "test/cli-sync.test.ts",
  "test/mcp-stdio.test.ts",
  "test/server-http.test.ts",
  "test/server-jobs.test.ts",
  "test/server-documents.test.ts",
  "test/server-search-ready.test.ts",
  "test/cli-cjk.test.ts",
  "test/cli-ask.test.ts",
];

export default defineConfig({
  test: {
    bail: 1,
    // Vitest's default is one worker fewer than the cores: one file at a time on CI's 2 cores,
    // while most files wait on child processes, servers or the browser. One per core (decision 053).
    maxWorkers: os.availableParallelism(),
    // A job or a page that settles within 10 s on a busy machine passes; 1 s (the default) made
    // the server's job polls fail whenever another file shared the cores.
    expect: { poll: { timeout: 10_000 } },
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "unit", include: ["src/**/*.test.ts"], exclude: CORPUS_TESTS } },
      { extends: true, test: { name: "corpus", include: CORPUS_TESTS } },
      { extends: true, test: { name: "integration", include: ["test/**/*.test.ts"], exclude: PACKAGE_TESTS } },
      { extends: true, test: { name: "integration-postgres", include: POSTGRES_INTEGRATION_TESTS, globalSetup: ["test/global-setup.ts", "test/global-setup-postgres.ts"] } },
      // npm pack, then a global install from the registry (better-sqlite3 compiles): minutes.
      { extends: true, test: { name: "package", include: PACKAGE_TESTS, testTimeout: 120_000, hookTimeout: 1_200_000 } },
    ],
  },
});
