import type { Command } from "commander";
import { toPlainJson } from "../../index.js";
import type { CliContext } from "../context.js";
import { plural, printJson } from "../shared/io.js";
import { formatModelReport } from "../shared/render.js";
import { describeSearchReadiness } from "../shared/search-readiness.js";
import { ownershipOf } from "../shared/ownership.js";


/** `chunkpad status`: folders, the embedding model, where it runs (a warm server or this process), and the answer provider. */
export function registerStatusCommand(program: Command, context: CliContext): void {
  program
    .command("status")
    .description("Show the added folders, the embedding model, whether a running chunkpad serve keeps it loaded for other commands, and the answer provider")
    .option("--json", "print a machine-readable report on stdout")
    .action(async (flags: { json?: boolean }) => {
      const { io } = context;
      const chunkpad = context.chunkpad();
      const [folders, host, providers, store] = await Promise.all([chunkpad.listFolders(), chunkpad.modelHost(), chunkpad.providers(), chunkpad.storeLocation()]);
      const ownership = await ownershipOf(chunkpad, store.backend);
      const model = await chunkpad.modelStatus();
      const provider = providers.find((candidate) => candidate.selected) ?? null;
      if (flags.json) {
        return printJson(io, { schema: "chunkpad.status/1", version: context.version, dataDir: chunkpad.paths.dataDir, store, ...(ownership === null ? {} : { machine: ownership.machine, folderOwners: ownership.owners }), folders: toPlainJson(folders), embeddingModel: model, modelHost: host, answerProvider: provider, search: host.server?.search ?? null });
      }
      const lines = [
        `Chunkpad ${context.version}; data in ${chunkpad.paths.dataDir}`,
        store.backend === "postgres" ? `Store: PostgreSQL at ${store.location} (shared with every Chunkpad that uses it)` : `Store: SQLite at ${store.location}`,
      ];
      if (ownership !== null) lines.push(`This machine: ${ownership.machine.name} (id ${ownership.machine.id}); a folder is processed on the machine that added it`);
      if (folders.length === 0) lines.push('No folders added yet. Run "chunkpad add <folder>" to start.');
      for (const folder of folders) {
        const excluded = folder.storedChunkCount - folder.includedChunkCount;
        const failed = folder.failedCount > 0 ? `, ${folder.failedCount} failed` : "";
        lines.push(
          `${folder.rootPath}: ${plural(folder.documentCount, "document")}, ${plural(folder.storedChunkCount, "chunk")} (${excluded} excluded), ${folder.embeddedChunkCount} embedded` +
            `${folder.modifiedChunkCount > 0 ? `, ${folder.modifiedChunkCount} changed since` : ""}${failed}${folder.ownedElsewhere && folder.owner ? `; belongs to the machine "${folder.owner.name}" (searched from here, processed there)` : ""}`,
        );
      }
      lines.push(formatModelReport(model).trimEnd());
      lines.push(
        host.runsIn === "server" && host.server
          ? `Model runs in: chunkpad serve at ${host.server.url} (pid ${host.server.pid}); search, ask and embed use its loaded model${host.server.loadedModels.length > 0 ? ` (${host.server.loadedModels.map((loaded) => loaded.model).join(", ")})` : " (it loads on first use)"}`
          : 'Model runs in: each command (no chunkpad serve running); "chunkpad serve" keeps it loaded between commands',
      );
      const search = host.server?.search;
      if (search) lines.push(`Search in chunkpad serve: ${describeSearchReadiness(search)}`);
      lines.push(provider ? `Answers: ${provider.provider} (${provider.model}): ${provider.ready ? "ready" : provider.detail}` : 'Answers: no provider set up. "chunkpad providers" lists them.');
      io.stdout.write(`${lines.join("\n")}\n`);
    });
}
