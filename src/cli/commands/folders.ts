import type { Command } from "commander";
import type { ChunkTreeNode } from "../../index.js";
import type { CliContext } from "../context.js";
import { expandHome, plural, printJson } from "../shared/io.js";
import { formatChunkStates } from "../shared/render.js";
import { lockOptions, NO_WAIT_HELP } from "../shared/locks.js";

export function registerFolderCommands(program: Command, context: CliContext): void {
  program
    .command("folders")
    .description("List the folders you have added, with document and chunk counts")
    .option("--json", "print machine-readable output on stdout")
    .action(async (flags: { json?: boolean }) => {
      const folders = await context.chunkpad().listFolders();
      if (flags.json) return printJson(context.io, folders);
      if (folders.length === 0) {
        context.io.stdout.write('No folders yet. Add one with "chunkpad add <folder>".\n');
        return;
      }
      for (const folder of folders) {
        const when = folder.lastProcessedAt ? `processed ${folder.lastProcessedAt.replace("T", " ").slice(0, 19)}` : "never processed";
        context.io.stdout.write(
          `${folder.rootPath}\n  ${plural(folder.documentCount, "document")}, ${plural(folder.storedChunkCount, "chunk")} (${folder.includedChunkCount} included, ${folder.embeddedChunkCount} embedded)` +
            `${folder.failedCount ? `, ${folder.failedCount} failed` : ""}; ${when}\n` +
            `  new chunks start ${folder.newChunksIncluded ? "included" : "excluded"}\n` +
            (folder.owner !== null && folder.ownedElsewhere
              ? `  on the machine "${folder.owner.name}" (id ${folder.owner.id}): search and chat over it from here; only that machine processes, embeds, watches or removes it ("chunkpad add ${folder.rootPath} --take-over" moves it here)\n`
              : ""),
        );
      }
    });

  program
    .command("remove")
    .description("Forget an added folder: its documents, chunks, vectors and review state leave the database (your documents are never touched)")
    .argument("<folder>", "a folder you have added")
    .option("--delete-chunks", "also delete the folder's _chunks/ directory, with any hand edits in it")
    .option("--json", "print machine-readable output on stdout")
    .option("--no-wait", NO_WAIT_HELP)
    .action(async (folder: string, flags: { deleteChunks?: boolean; json?: boolean; wait?: boolean }) => {
      const removed = await context.chunkpad().removeFolder(folder, { deleteChunkFiles: flags.deleteChunks, ...lockOptions(context, flags.wait) });
      if (flags.json) return printJson(context.io, removed);
      context.io.stdout.write(`Removed ${removed.rootPath} from Chunkpad.\n`);
      context.io.stdout.write(removed.chunkFilesDeleted ? `Deleted ${removed.chunksRootPath}.\n` : `Kept ${removed.chunksRootPath} (delete it yourself, or use --delete-chunks).\n`);
    });

  program
    .command("chunks")
    .description("Show the chunk-file tree of an added folder, with chunk counts")
    .argument("<folder>", "a folder you have added", expandHome)
    .option("--chunks", "list every chunk: included or excluded, embedded, modified since embedding, or new")
    .option("--json", "print machine-readable output on stdout")
    .action(async (folder: string, flags: { json?: boolean; chunks?: boolean }) => {
      if (flags.chunks) {
        const states = await context.chunkpad().chunkStates(folder);
        if (flags.json) return printJson(context.io, states);
        context.io.stdout.write(formatChunkStates(states));
        return;
      }
      const report = await context.chunkpad().chunkTree(folder);
      if (flags.json) return printJson(context.io, report);
      context.io.stdout.write(`${report.chunksRootPath}  (${plural(report.fileCount, "file")}, ${plural(report.chunkCount, "chunk")}; new chunks start ${report.newChunks})\n`);
      context.io.stdout.write(renderTree(report.tree.children, ""));
    });
}

function renderTree(nodes: ChunkTreeNode[], indent: string): string {
  let text = "";
  nodes.forEach((node, index) => {
    const last = index === nodes.length - 1;
    const branch = last ? "└── " : "├── ";
    if (node.type === "folder") {
      text += `${indent}${branch}${node.name}/  (${plural(node.fileCount, "file")}, ${plural(node.chunkCount, "chunk")})\n`;
      text += renderTree(node.children, indent + (last ? "    " : "│   "));
    } else {
      text += `${indent}${branch}${node.name}  ${plural(node.chunkCount, "chunk")}${node.detail ? `  ${node.detail}` : ""}\n`;
    }
  });
  return text;
}
