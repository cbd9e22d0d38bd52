import { ChunkpadError, formatModelBytes, type EmbedConsentRequest, type EmbedProgress } from "../../index.js";
import { createProgressBar } from "./progress.js";
import type { CliIo } from "./io.js";
import { askYesNo, canPrompt } from "./prompt.js";

/** Consent and progress for a model download (`embed`, `model download`). */

export const DTYPES = ["fp32", "q8"] as const;

/**
 * Consent to download the model: --yes agrees (and says so), a terminal asks, anything else
 * refuses with an error that says to pass --yes: a script must never download by surprise.
 */
export function consentFor(io: CliIo, yes: boolean, command = "chunkpad embed"): (request: EmbedConsentRequest) => Promise<boolean> {
  const what = (request: EmbedConsentRequest) => `${request.repoId} (${describeSize(request.sizeBytes)})`;
  if (yes) {
    return async (request) => {
      io.stderr.write(`Downloading the embedding model ${what(request)} from ${request.hubUrl} into ${request.cacheDir} (--yes).\n`);
      return true;
    };
  }
  if (canPrompt(io)) {
    return (request) =>
      askYesNo(
        io,
        `The embedding model ${what(request)} is not downloaded yet. Download it once from ${request.hubUrl} into ${request.cacheDir}? Search and later runs use that copy.`,
      );
  }
  return async (request) => {
    throw new ChunkpadError(
      "MODEL_CONSENT_REQUIRED",
      `The embedding model ${what(request)} must be downloaded first, and stdin is not a terminal, so Chunkpad cannot ask. ` +
        `Pass --yes to agree to the download (${command} --yes), or use a model directory you already have (--model /path/to/model-dir).`,
    );
  };
}

/**
 * Consent to download the rerank model: --yes agrees, a terminal asks; otherwise no (the search
 * goes on without rerank, and its notice says to pass --yes).
 */
export function rerankConsentFor(io: CliIo, yes: boolean): (request: { repoId: string; sizeBytes: number | null }) => Promise<boolean> {
  const what = (request: { repoId: string; sizeBytes: number | null }) => `${request.repoId} (${describeSize(request.sizeBytes)})`;
  if (yes) {
    return async (request) => {
      io.stderr.write(`Downloading the rerank model ${what(request)} (--yes).\n`);
      return true;
    };
  }
  if (canPrompt(io)) return (request) => askYesNo(io, `Reranking needs the cross-encoder ${what(request)}, not downloaded yet. Download it once? Later searches use that copy.`);
  return async () => false;
}

function describeSize(bytes: number | null): string {
  return bytes === null ? "size unknown" : formatModelBytes(bytes);
}

/** Model download progress: bytes and percent, redrawn on a terminal, a line per 10% otherwise. */
/** What a download display needs: the hub's progress events and a model's "downloading" status share it. */
export interface DownloadState {
  percent: number;
  bytesDone: number;
  bytesTotal: number | null;
}

/**
 * One download display for every model (embedding, local LLM): a redrawn bar on a terminal,
 * otherwise a line every 10 %, so logs show the download moving. `label` names what is downloading.
 */
export function createDownloadDisplay<State extends DownloadState>(io: CliIo, label: (state: State) => string = () => "the embedding model"): (state: State) => void {
  const tty = Boolean(io.stderr.isTTY);
  let lastStep = -1;
  let lastPercent = -1;
  let finished = false;
  return (state) => {
    if (finished) return;
    const percent = Math.floor(state.percent);
    const total = state.bytesTotal === null ? "?" : formatModelBytes(state.bytesTotal);
    const filled = Math.round((Math.min(100, state.percent) / 100) * 24);
    const text = `downloading ${label(state)}: ${"█".repeat(filled)}${"░".repeat(24 - filled)} ${percent}% (${formatModelBytes(state.bytesDone)} of ${total})`;
    const done = state.bytesTotal !== null && state.bytesDone >= state.bytesTotal;
    if (tty) {
      if (percent === lastPercent && !done) return;
      lastPercent = percent;
      io.stderr.write(`\r\x1b[2K${text}${done ? "\n" : ""}`);
    } else {
      const step = Math.floor(percent / LINE_STEP_PERCENT);
      if (step === lastStep && !done) return;
      lastStep = step;
      io.stderr.write(`${text}\n`);
    }
    finished = done;
  };
}

export const LINE_STEP_PERCENT = 10;

export interface EmbedProgressDisplay {
  report(event: EmbedProgress): void;
  stop(): void;
}

/**
 * Download (bytes and %), then "loading", then chunks done/total with chunks/s, on stderr: a
 * redrawn bar on a terminal, else a line every 10% so logs show the run moving. `quiet` (--json)
 * keeps only the download lines, which are rare and worth seeing in a log.
 */
export function createEmbedProgress(io: CliIo, { quiet }: { quiet: boolean }): EmbedProgressDisplay {
  const tty = Boolean(io.stderr.isTTY);
  const bar = createProgressBar(io.stderr as NodeJS.WriteStream, tty && !quiet);
  const download = createDownloadDisplay(io);
  let lastStep = -1;
  return {
    report(event) {
      if (event.phase === "model") {
        if (event.status.state === "downloading") download(event.status);
        else if (event.status.state === "loading" && !quiet) io.stderr.write("Loading the embedding model…\n");
        return;
      }
      if (event.phase !== "embed" || quiet) return;
      const rate = `${Math.round(event.chunksPerSecond)} chunks/s`;
      if (tty) return bar.update(event.done, event.total, rate);
      const percent = event.total === 0 ? 100 : Math.floor((event.done / event.total) * 100);
      const step = Math.floor(percent / LINE_STEP_PERCENT);
      if (event.done === 0 || (step === lastStep && event.done < event.total)) return;
      lastStep = step;
      io.stderr.write(`embedded ${event.done}/${event.total} chunks (${percent}%), ${rate}\n`);
    },
    stop: () => bar.stop(),
  };
}
