import { withCliNextSteps } from "./next-step.js";
import { describePageRuns, failureNextSteps, formatModelBytes, type ModelReport, type ChunkState, type ConversationView, type EmbedReport, type MessageView, type ProcessReport, type SearchResult, type SyncFolderReport, type WatchEvent } from "../../index.js";
import { plural } from "./io.js";

/** The pieces of a result line that `search` and the chunks bar of `ask` and `chat` share. */

/** "3.", right-aligned to `width` digits so that the list lines up. */
export function formatResultNumber(index: number, width: number): string {
  return `${String(index + 1).padStart(width)}.`;
}

/** The relevance percentage in four columns: " 87%". */
export function formatRelevance(result: SearchResult): string {
  return `${result.relevancePercent}%`.padStart(4);
}

/** Where the chunk is: "notes/report.pdf p. 3 · Introduction". */
export function formatResultPlace(result: SearchResult): string {
  const where = [result.relativePath, result.location].filter(Boolean).join(" ");
  return `${where}${result.section ? ` · ${result.section}` : ""}`;
}

/** One result's raw numbers (--explain), shared with the chunks bar of `ask`. */
export function explainLine(result: SearchResult): string {
  const parts = [`score ${formatNumber(result.score)}`];
  const vector = result.notEmbedded ? "vector: not embedded (scored at its keyword rank)" : "vector: not found";
  const lookedUp = result.distanceLookedUp ? " (looked up for fusion)" : "";
  parts.push(result.distance === undefined ? vector : `vector: distance ${formatNumber(result.distance)}, rank ${result.vectorRank}${lookedUp}`);
  // Keyword score: bm25, higher is better (0 would be no match).
  parts.push(result.keywordScore === undefined ? "keyword: no query word" : `keyword: score ${formatNumber(result.keywordScore)}, rank ${result.keywordRank}`);
  if (result.rerankScore !== undefined) parts.push(`rerank: ${formatNumber(result.rerankScore)}, rank ${result.rerankRank} (fused ${formatNumber(result.fusedScore ?? result.score)})`);
  else if (result.fusedScore !== undefined) parts.push(`not reranked (fused ${formatNumber(result.fusedScore)})`);
  if (result.pinned) parts.push("pinned");
  if (result.stale) parts.push("edited since embedding (run chunkpad embed)");
  return parts.join(" · ");
}

/** Four decimals, or three significant digits for tiny values (a keyword score in a small folder is near 0). */
function formatNumber(value: number): string {
  return value !== 0 && Math.abs(value) < 0.001 ? value.toExponential(2) : value.toFixed(4);
}

export function formatConversation(conversation: ConversationView): string {
  const lines = [`Conversation ${conversation.id.slice(0, SHORT_ID_CHARS)}: ${conversation.title}`, `started ${formatTime(conversation.createdAt)}, last ${formatTime(conversation.updatedAt)}`, ""];
  for (const message of conversation.messages) lines.push(...formatMessage(message), "");
  return `${lines.join("\n")}`;
}

function formatMessage(message: MessageView): string[] {
  if (message.role !== "assistant") return [`You (${formatTime(message.createdAt)}):`, indent(message.content)];
  const by = message.provider ? ` · ${message.provider}${message.model ? ` ${message.model}` : ""}` : "";
  const lines = [`Answer (${formatTime(message.createdAt)}${by})${message.incomplete ? " [incomplete]" : ""}:`, indent(message.content || "(no text)")];
  for (const citation of message.citations) {
    const where = [citation.source, citation.location].filter(Boolean).join(" ");
    const state = citation.missing ? " (no longer in the index)" : citation.changed ? " (changed since cited; the text below is what was cited)" : "";
    lines.push(`  [${citation.label}] ${where} · ${citation.ref}${state}`);
    if (citation.text !== null) lines.push(`      "${preview(citation.text)}"`);
  }
  for (const label of message.invalidCitations) lines.push(`  [${label}?] invented: not one of the chunks the answer was given`);
  return lines;
}

/** Characters of cited text shown per citation; `history --json` has all of it. */
const CITED_PREVIEW_CHARS = 160;

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > CITED_PREVIEW_CHARS ? `${flat.slice(0, CITED_PREVIEW_CHARS - 1)}…` : flat;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}

/** "2026-03-01 14:05", in local time. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** `chunkpad chunks <folder> --chunks`: one line per chunk with its review and embed state. */
export function formatChunkStates(states: readonly ChunkState[]): string {
  const lines: string[] = [];
  let file: string | undefined;
  for (const state of states) {
    if (state.relativePath !== file) {
      file = state.relativePath;
      lines.push(file);
    }
    const review = state.included ? "included" : "excluded";
    const embed = state.embedState === "modified" ? "modified since embedding" : state.embedState === "new" ? "new (not embedded)" : "embedded";
    const where = [state.location, state.section].filter(Boolean).join(" · ");
    lines.push(`  #${state.ordinal}  ${review}, ${embed}${where ? `  [${where}]` : ""}  ${state.preview}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Enough of a UUID to tell conversations apart; `history <id>` takes any unique start. */
export const SHORT_ID_CHARS = 8;

export function formatProcessReport(report: ProcessReport): string {
  const lines: string[] = [];
  const seconds = (report.durationMs / 1000).toFixed(1);
  lines.push(`${report.folder.rootPath} → ${report.folder.chunksRootPath}`);
  if (report.chunksInDataDir) lines.push("  note: the folder is read-only, so its chunk files are kept in Chunkpad's data folder (above), not in the folder itself");
  lines.push(
    `  processed ${report.processed.length}, unchanged ${report.unchanged.length}, edits taken in ${report.editsSynced.length}, ` +
      `skipped ${report.skipped.length}, failed ${report.failed.length}, conflicts ${report.conflicts.length}, removed ${report.removed.length}${report.renamed.length > 0 ? `, renamed ${report.renamed.length}` : ""}; ` +
      `${plural(report.chunksWritten, "chunk")} written in ${seconds} s`,
  );
  for (const file of report.processed) {
    const unit = file.format === "pptx" || file.format === "ppt" || file.format === "odp" ? "slide" : file.format === "xlsx" || file.format === "xls" || file.format === "ods" ? "sheet" : "page";
    const pages = file.pages ? `, ${plural(file.pages, unit)}` : "";
    const ocr = file.ocrPages ? `, OCR: ${describePageRuns(file.ocrPages)}` : "";
    lines.push(`  + ${file.path} (${file.format}${pages}${ocr}): ${plural(file.chunks, "chunk")}`);
    for (const warning of file.warnings) lines.push(`    note: ${warning}`);
  }
  for (const edit of report.editsSynced) {
    lines.push(`  ✎ ${edit.path}: your edited chunk file was taken in (${plural(edit.chunks, "chunk")})`);
    for (const warning of edit.warnings) lines.push(`    note: ${warning}`);
  }
  for (const rename of report.renamed) lines.push(`  → ${rename.from} → ${rename.to}: renamed; chunks, review decisions and vectors kept`);
  for (const conflict of report.conflicts) lines.push(`  ! ${conflict.path}: ${withCliNextSteps(conflict.message, conflict.nextSteps)}`);
  for (const failure of report.failed) lines.push(`  ✗ ${failure.path}: ${withCliNextSteps(`${failure.message}${failure.unchangedSinceFailure ? " (unchanged since it failed)" : ""}`, failureNextSteps(failure.code, failure.message))}`);
  for (const skip of report.skipped) lines.push(`  - ${skip.relativePath}: skipped, ${skip.reason}`);
  const kept = new Map(report.keptEdits.map((edit) => [edit.path, edit.chunkFile]));
  for (const removed of report.removed) {
    const chunkFile = kept.get(removed);
    lines.push(
      chunkFile === undefined
        ? `  − ${removed}: source gone, chunk file removed`
        : `  − ${removed}: source gone; kept your edited chunk file ${chunkFile} (delete it when you no longer need it)`,
    );
  }
  return `${lines.join("\n")}\n`;
}

export function formatEmbedReport(report: EmbedReport): string {
  const lines: string[] = [];
  const details = [report.dtype, report.dimensions ? `${report.dimensions} dims` : null].filter(Boolean).join(", ");
  const model = `${report.model}${details ? ` (${details})` : ""}`;
  const seconds = (report.durationMs / 1000).toFixed(1);
  const { synced } = report;
  if (synced.editsTakenIn > 0) lines.push(`Took in your edits to ${plural(synced.editsTakenIn, "chunk file")}.`);
  if (synced.documentsProcessed > 0) lines.push(`Processed ${plural(synced.documentsProcessed, "new or changed document")} first.`);
  if (synced.sourcesRemoved > 0) lines.push(`Removed ${plural(synced.sourcesRemoved, "deleted document")}.`);
  if (report.reembed) lines.push("Dropped every vector (--reembed) to embed again.");
  const excluded = report.excluded > 0 ? `, excluded ${report.excluded}` : "";
  if (report.nothingToDo) {
    const state = report.unchanged === 0 ? "no chunks are included" : `${report.unchanged === 1 ? "the included chunk is" : `all ${report.unchanged} included chunks are`} embedded with ${model}`;
    lines.push(`Nothing to embed: ${state}${report.excluded > 0 ? ` (${report.excluded} excluded)` : ""}.`);
  } else {
    const rate = report.chunksPerSecond === null ? "" : `, ${Math.round(report.chunksPerSecond)} chunks/s`;
    lines.push(`Embedded ${plural(report.embedded, "chunk")}, removed ${report.removed}, unchanged ${report.unchanged}${excluded} with ${model} in ${seconds} s${rate}.`);
  }
  for (const change of report.configChanged) lines.push(`${change.key} is now ${change.value} in the config, so search uses the same model.`);
  return `${lines.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------------
// watch

function clockTime(): string {
  return new Date().toTimeString().slice(0, 8);
}

export function describeWatchEvent(event: WatchEvent): string {
  switch (event.type) {
    case "ready":
      return event.folders.length === 0
        ? 'No folders added yet. Run "chunkpad add <folder>" first; watch then keeps it in sync.\n'
        : `Watching ${plural(event.folders.length, "folder")} (Ctrl-C stops): ${event.folders.join(", ")}\n`;
    case "syncing": {
      const what = event.reason === "start" ? "catching up" : event.reason === "returned" ? "folder is back, catching up" : event.reason === "rescan" ? "full rescan" : event.paths.slice(0, 3).join(", ") + (event.paths.length > 3 ? ` and ${event.paths.length - 3} more` : "");
      return `${clockTime()} ${event.rootPath}: ${what}\n`;
    }
    case "synced":
      return event.report.folders.map((folder) => `${clockTime()} ${folder.rootPath}: ${summarize(folder)} (${(event.durationMs / 1000).toFixed(1)} s)\n`).join("");
    case "missing":
      return `${clockTime()} ${event.rootPath} is gone (moved or deleted); its index is kept and it is synced again when it comes back.\n`;
    case "error":
      return `${clockTime()} ${event.rootPath ?? ""}${event.rootPath ? ": " : ""}${event.message}\n`;
  }
}

function summarize(folder: SyncFolderReport): string {
  const parts: string[] = [];
  const processed = folder.processed;
  if (processed) {
    if (processed.processed.length > 0) parts.push(`${plural(processed.processed.length, "document")} processed`);
    if (processed.editsSynced.length > 0) parts.push(`${plural(processed.editsSynced.length, "edited chunk file")} taken in`);
    if (processed.renamed.length > 0) parts.push(`${processed.renamed.length} renamed`);
    if (processed.removed.length > 0) parts.push(`${processed.removed.length} removed`);
    if (processed.failed.length > 0) parts.push(`${processed.failed.length} failed (${processed.failed.map((failure) => `${failure.path}: ${failure.message}`).join("; ")})`);
    if (processed.conflicts.length > 0) parts.push(`${plural(processed.conflicts.length, "conflict")} (run "chunkpad process" to see them)`);
  }
  const embedded = folder.embedded;
  if (embedded) {
    const synced = embedded.synced;
    if (synced.documentsProcessed > 0) parts.push(`${plural(synced.documentsProcessed, "document")} processed`);
    if (synced.editsTakenIn > 0) parts.push(`${plural(synced.editsTakenIn, "edited chunk file")} taken in`);
    if (synced.sourcesRenamed > 0) parts.push(`${synced.sourcesRenamed} renamed`);
    if (synced.sourcesRemoved > 0) parts.push(`${synced.sourcesRemoved} removed`);
    if (synced.failed > 0) parts.push(`${synced.failed} failed`);
    if (embedded.embedded > 0) parts.push(`${plural(embedded.embedded, "chunk")} embedded`);
    if (embedded.removed > 0) parts.push(`${plural(embedded.removed, "vector")} removed`);
  }
  return parts.length === 0 ? "up to date" : parts.join(", ");
}

// ---------------------------------------------------------------------------------------------
// model

export function formatModelReport(report: ModelReport): string {
  const details = [report.model !== report.spec ? report.model : null, report.dtype, report.dimensions ? `${report.dimensions} dims` : null].filter(Boolean).join(", ");
  const lines = [`Embedding model: ${report.spec}${details ? ` (${details})` : ""}${report.provider === "local" ? "" : ` via ${report.provider}`}`];
  const size = report.approximateBytes === null ? "" : ` (about ${formatModelBytes(report.approximateBytes)})`;
  switch (report.status.state) {
    case "ready":
      lines.push(report.provider === "local" ? "Status: ready (on disk; nothing to download)" : `Status: served by ${report.provider}; nothing to download`);
      break;
    case "notDownloaded":
      lines.push(`Status: not downloaded${size}. "chunkpad embed" or "chunkpad model download" gets it (after asking).`);
      break;
    case "error":
      lines.push(`Status: error: ${report.status.message}`);
      break;
    default:
      lines.push(`Status: ${report.status.state}`);
  }
  if (report.location !== null) lines.push(`Location: ${report.location}`);
  if (report.status.state === "notDownloaded") lines.push(`Hub: ${report.hubUrl}`);
  if (report.assumption !== null) lines.push(`Note: ${report.assumption}`);
  return `${lines.join("\n")}\n`;
}
