import type { Command } from "commander";
import { ChunkpadError, toPlainJson, type MigrateProgress } from "../../index.js";
import type { CliContext } from "../context.js";
import { printJson } from "../shared/io.js";

/** `chunkpad migrate --to postgres://…`: copies this store into a shared PostgreSQL database. */
export function registerMigrateCommand(program: Command, context: CliContext): void {
  program
    .command("migrate")
    .description("Copy this store (folders, documents, chunks, review decisions, vectors, conversations) into an empty PostgreSQL + pgvector database, then check the counts")
    .requiredOption("--to <url>", "the target database: postgres://user@host:5432/database (the password in PGPASSWORD or ~/.pgpass)")
    .option("--json", "print the report as JSON on stdout")
    .action(async (flags: { to: string; json?: boolean }) => {
      const { io } = context;
      const chunkpad = context.chunkpad();
      let lastLine = "";
      const onProgress = (progress: MigrateProgress) => {
        const line = `${progress.stage}${progress.folder ? ` (${progress.folder})` : ""}: ${progress.done}/${progress.total}`;
        if (line !== lastLine && (progress.done === progress.total || progress.done % 100 === 0)) io.stderr.write(`${line}\n`);
        lastLine = line;
      };
      const report = await chunkpad.migrateTo(flags.to, { onProgress });
      if (flags.json) printJson(io, { schema: "chunkpad.migrate/1", ...(toPlainJson(report) as object) });
      else {
        const { copied } = report;
        io.stdout.write(
          `Copied to ${report.target} in ${(report.elapsedMs / 1000).toFixed(1)} s: ${copied.folders} folders, ${copied.documents} documents, ${copied.chunks} chunks (${copied.excludedChunks} excluded), ` +
            `${copied.vectors} vectors, ${copied.conversations} conversations (${copied.messages} messages).\n`,
        );
        if (report.mismatches.length === 0) io.stdout.write("Counts match. Point every Chunkpad at it: export CHUNKPAD_DATABASE_URL=<the URL> (or chunkpad config set store.url <the URL without its password>).\n");
      }
      if (report.mismatches.length > 0) throw new ChunkpadError("INTERNAL", `The copy is incomplete: ${report.mismatches.join("; ")}. Nothing here was changed; empty the target and run migrate again.`);
    });
}
