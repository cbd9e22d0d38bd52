import { afterAll } from "vitest";
import { releaseTestDatabases } from "./helpers/cli.js";

// The integration-postgres project's setup, run before each file: when the file ends (after its
// own afterAll hooks: servers stopped, homes removed), its homes' databases are recycled for the
// next files at once, rather than after a minute without a connection (decision 099).
afterAll(releaseTestDatabases);
