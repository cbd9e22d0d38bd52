#!/usr/bin/env node
import { main } from "../dist/cli/main.js";

// A reader that stops early (`chunkpad search ... | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await main(process.argv.slice(2));
