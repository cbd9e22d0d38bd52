import { streamSSE } from "hono/streaming";
import type { Hono } from "hono";
import {
  ChunkpadError, createAnswerCollector, toArchiveProgressEvent, toExportJson, toImportJson, toAskFailureEvents, toAskStreamEvents, toDownloadProgressEvent, toEmbedJson, toEmbedProgressEvent,
  toProcessJson, toProcessProgressEvent, toSyncJson, type AskEvent, type Chunkpad,
} from "../index.js";
import { summarize, type Job, type JobContext, type JobEvent, type JobManager } from "./jobs.js";
import { checkProcessTarget } from "./guards.js";
import type { JobJson } from "./wire-types.js";
import { localPath } from "./data-routes.js";
import { askBody, jobBody, parsed, regenerateBody } from "./api-shapes.js";

/**
 * The server's long work as jobs (app.ts): process, embed, sync, the local model's download,
 * answers and regenerated answers. Started by POST, followed over SSE (replayed from the start,
 * or from Last-Event-ID), stopped by DELETE; they run on when the tab that started them closes.
 */
export function registerJobRoutes(app: Hono, chunkpad: Chunkpad, jobs: JobManager): void {
  const jobJson = (job: Job): JobJson => ({ ...summarize(job), events: `/api/jobs/${job.id}/events` });
  const consentOf = (agreed: boolean | undefined) => async () => agreed === true;

  app.post("/api/jobs", async (c) => {
    const body = parsed(jobBody, await c.req.json().catch(() => undefined));
    if (body.kind === "local-model" && body.consent !== true) throw new ChunkpadError("MODEL_CONSENT_REQUIRED", "Downloading the local answer model needs the user's consent: send consent: true once they agreed.");
    if (body.kind === "process" && body.folder === undefined) throw new ChunkpadError("INVALID_ARGUMENT", 'folder: a process job needs the folder to process (its path, or its id from /api/folders).');
    // An added folder's id names it as well as its path does (a new folder has only a path).
    const byId = body.folder === undefined ? undefined : (await chunkpad.listFolders()).find((folder) => folder.id === body.folder);
    const processTarget = byId?.rootPath ?? body.folder;
    if (body.kind === "process" && byId === undefined) checkProcessTarget(processTarget as string, body.confirmBroadFolder === true);
    if ((body.kind === "export" || body.kind === "import") && body.file === undefined) throw new ChunkpadError("INVALID_ARGUMENT", `file: an ${body.kind} job needs the archive to ${body.kind === "export" ? "write" : "read"} (a path on this computer).`);
    if (body.kind === "import" && body.into === undefined) throw new ChunkpadError("INVALID_ARGUMENT", "into: an import job needs the folder to restore into (an archive never chooses where its files go).");
    const archive = body.file === undefined ? undefined : parsed(localPath, body.file);
    const job = jobs.start(body.kind, archive ?? body.folder ?? null, async ({ signal, emit }) => {
      if (body.kind === "export") {
        return toExportJson(await chunkpad.exportArchive(archive as string, { withSources: body.withSources === true, onProgress: (progress) => emit(toArchiveProgressEvent(progress)) }));
      }
      if (body.kind === "import") {
        const { report, embedded } = await chunkpad.importArchive(archive as string, { into: parsed(localPath, body.into), signal, onArchiveProgress: (progress) => emit(toArchiveProgressEvent(progress)) });
        return toImportJson({ ...report, embedded });
      }
      if (body.kind === "process") {
        return toProcessJson(await chunkpad.processFolder(processTarget as string, { signal, ...(body.password ? { password: body.password } : {}), onProgress: (progress) => emit(toProcessProgressEvent(progress)), onWaiting: (holder) => emit({ type: "waiting", holder }) }));
      }
      if (body.kind === "local-model") {
        return await chunkpad.downloadLocalModel({ consent: () => true, signal, onProgress: (progress) => emit(toDownloadProgressEvent(progress)) });
      }
      if (body.kind === "embed") {
        return toEmbedJson(await chunkpad.embed({ ...(body.folder && body.reembed !== true ? { folder: body.folder } : {}), ...(body.reembed === true ? { reembed: true } : {}), signal, consent: consentOf(body.consent), onProgress: (progress) => emit(toEmbedProgressEvent(progress)), onWaiting: (holder) => emit({ type: "waiting", holder }) }));
      }
      return toSyncJson(await chunkpad.sync(body.folder, {
        signal,
        embed: body.embed === true,
        consent: consentOf(body.consent),
        onProcessProgress: (progress) => emit(toProcessProgressEvent(progress)),
        onEmbedProgress: (progress) => emit(toEmbedProgressEvent(progress)),
        onFolder: (folder) => emit({ type: "sync-folder", ...folder }),
      }));
    });
    return c.json(jobJson(job), 202);
  });

  // An answer in a conversation (a new one when none is named): the chat session (app/) searches,
  // answers with the conversation so far, and keeps the question's sources in the chat store.
  app.post("/api/ask", async (c) => {
    const body = parsed(askBody, await c.req.json().catch(() => undefined));
    const job = jobs.start("ask", body.question, async ({ signal, emit }) => {
      const session = await chunkpad.startChat({
        signal,
        ...(body.mode ? { mode: body.mode } : {}),
        ...(body.strict === undefined ? {} : { strict: body.strict }),
        ...(body.provider ? { provider: body.provider } : {}),
        ...(body.model ? { model: body.model } : {}),
        ...(body.pins ? { pins: body.pins } : {}),
        ...(body.folders ? { folders: body.folders } : {}),
        ...(body.conversationId ? { conversationId: body.conversationId } : {}),
        consent: () => body.consent === true,
        onDownloadProgress: (progress) => emit(toDownloadProgressEvent(progress)),
        onNotice: (message) => emit({ type: "notice", message }),
      });
      return await streamAnswer(body.question, session.ask(body.question), emit);
    });
    return c.json(jobJson(job), 202);
  });

  // Regenerate: the conversation's last question, answered again from the sources the chat store
  // kept for it with only the numbers in `included` switched on; no new search.
  app.post("/api/regenerate", async (c) => {
    const body = parsed(regenerateBody, await c.req.json().catch(() => undefined));
    // The session is opened here, so a conversation with nothing to regenerate is a 404, not a failed job.
    const stopped = new AbortController();
    const session = await chunkpad.startChat({
      conversationId: body.conversationId,
      signal: stopped.signal,
      ...(body.strict === undefined ? {} : { strict: body.strict }),
      ...(body.provider ? { provider: body.provider } : {}),
      ...(body.model ? { model: body.model } : {}),
    });
    if (session.chunks.length === 0) throw new ChunkpadError("NOT_FOUND", "That conversation's last question has no sources kept (asked before sources were stored, or its chunks are gone); ask it again.");
    session.setIncluded(body.included);
    const question = await chunkpad.getConversation(body.conversationId).then((conversation) => conversation.messages.findLast((message) => message.role === "user")?.content ?? "");
    const job = jobs.start("ask", question, ({ signal, emit }) => {
      signal.addEventListener("abort", () => stopped.abort(signal.reason), { once: true });
      return streamAnswer(question, session.regenerate(), emit);
    });
    return c.json(jobJson(job), 202);
  });

  app.get("/api/jobs", (c) => c.json({ jobs: jobs.list().map((job): JobJson => ({ ...job, events: `/api/jobs/${job.id}/events` })) }));

  const findJob = (id: string): Job => {
    const job = jobs.get(id);
    if (!job) throw new ChunkpadError("NOT_FOUND", `There is no job ${id} (finished jobs are kept for a while only). GET /api/jobs lists them.`);
    return job;
  };
  app.get("/api/jobs/:id", (c) => c.json(jobJson(findJob(c.req.param("id")))));
  app.delete("/api/jobs/:id", (c) => {
    const job = findJob(c.req.param("id"));
    jobs.cancel(job.id);
    return c.json(jobJson(job), 202);
  });

  app.get("/api/jobs/:id/events", (c) => {
    const job = findJob(c.req.param("id"));
    const lastSeen = Number(c.req.header("last-event-id") ?? "-1");
    return streamSSE(c, async (stream) => {
      const queue: JobEvent[] = job.events.slice(Number.isInteger(lastSeen) ? lastSeen + 1 : 0);
      let wake: (() => void) | null = null;
      const listener = (event: JobEvent) => {
        queue.push(event);
        wake?.();
      };
      if (job.state === "running") job.listeners.add(listener);
      stream.onAbort(() => {
        job.listeners.delete(listener);
        wake?.();
      });
      try {
        for (;;) {
          for (let event = queue.shift(); event; event = queue.shift()) await stream.writeSSE({ id: String(event.id), event: event.type, data: JSON.stringify(event.data) });
          if (job.state !== "running" || stream.aborted) break;
          await new Promise<void>((resolve) => {
            wake = resolve;
            if (queue.length > 0 || job.state !== "running") resolve();
          });
          wake = null;
        }
      } finally {
        job.listeners.delete(listener);
      }
    });
  });

}

/** An answer's events as the wire's, collected into the job's result; a failure ends the stream with its events. */
async function streamAnswer(question: string, events: AsyncGenerator<AskEvent>, emit: JobContext["emit"]): Promise<unknown> {
  const collector = createAnswerCollector(question);
  try {
    for await (const event of events) for (const wire of toAskStreamEvents(event, collector)) emit(wire);
  } catch (error) {
    for (const wire of toAskFailureEvents(error, collector)) emit(wire);
    throw error;
  }
  return collector.result();
}
