import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The part every fake provider server shares: an HTTP server on 127.0.0.1 (port 0) that
 * records each request and answers from a queue of scripted steps. The provider servers turn a
 * step into their own wire format, frame by frame.
 */

/** Errors a provider can answer with, in provider-neutral words; each server sends its real body. */
export type ScriptedError = "auth" | "forbidden" | "model-not-found" | "rate-limit" | "server" | "context-length";

export type Step =
  | {
      reply: "text";
      /** The deltas, in order; their concatenation is the answer. */
      deltas: string[];
      /** Wait this long before each delta (a slow stream). */
      delayMs?: number;
      /** Destroy the socket after this many deltas (a dropped connection). */
      dropAfterDeltas?: number;
      /** End the response cleanly after this many deltas, without the closing frames. */
      endAfterDeltas?: number;
      /** Send the provider's in-stream error frame after this many deltas. */
      errorAfterDeltas?: number;
      finishReason?: "stop" | "length";
      usage?: { inputTokens: number; outputTokens: number };
    }
  | { reply: "error"; error: ScriptedError; retryAfterSeconds?: number };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface ScriptedServer {
  /** http://127.0.0.1:{port} */
  url: string;
  requests: RecordedRequest[];
  /** Queues steps; when the queue is empty the default step answers. */
  script(...steps: Step[]): void;
  /** Forgets the queued steps and the recorded requests. */
  reset(): void;
  /** Resolves when a client goes away before its response ended (an aborted stream). */
  nextDisconnect(): Promise<void>;
  close(): Promise<void>;
}

export interface StreamWriter {
  /** Writes and waits until the bytes left the process; false when the client has gone. */
  write(chunk: string): Promise<boolean>;
  /** Waits, or resolves early when the client goes away. */
  pause(delayMs: number): Promise<void>;
  end(): void;
  /** Cuts the connection without ending the response. */
  drop(): void;
}

export type Route = (request: RecordedRequest, step: Step, response: ServerResponse, writer: StreamWriter) => Promise<void>;

export const DEFAULT_STEP: Step = { reply: "text", deltas: ["Hello", " from", " the", " server."] };

export async function startScriptedServer(route: Route): Promise<ScriptedServer> {
  const queue: Step[] = [];
  const requests: RecordedRequest[] = [];
  const disconnectWaiters: Array<() => void> = [];

  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: Record<string, unknown> = {};
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      } catch {
        body = { unparsed: raw };
      }
      const request: RecordedRequest = { method: incoming.method ?? "GET", path: incoming.url ?? "/", headers: incoming.headers, body };
      requests.push(request);
      response.on("close", () => {
        if (!response.writableFinished) for (const wake of disconnectWaiters.splice(0)) wake();
      });
      const step = queue.shift() ?? DEFAULT_STEP;
      route(request, step, response, createWriter(response)).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
        response.end(`test server failed: ${String(error)}`);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...steps) => queue.push(...steps),
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    nextDisconnect: () => new Promise<void>((resolve) => disconnectWaiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function createWriter(response: ServerResponse): StreamWriter {
  const gone = () => response.destroyed || response.writableEnded;
  return {
    write: (chunk) =>
      new Promise<boolean>((resolve) => {
        if (gone()) {
          resolve(false);
          return;
        }
        response.write(chunk, (error) => resolve(!error));
      }),
    pause: (delayMs) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, delayMs);
        function done() {
          clearTimeout(timer);
          response.off("close", done);
          resolve();
        }
        response.once("close", done);
      }),
    end: () => {
      if (!gone()) response.end();
    },
    drop: () => response.socket?.destroy(),
  };
}

/** Sends a JSON error body with the given status and headers. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

/** The retry-after header for a scripted rate limit. */
export function retryAfterHeaders(step: Step): Record<string, string> {
  return step.reply === "error" && step.retryAfterSeconds !== undefined ? { "retry-after": String(step.retryAfterSeconds) } : {};
}

/** Where a text step stops early, if it does, and how. */
export function cutPoint(step: Extract<Step, { reply: "text" }>): { at: number; how: "drop" | "end" | "error" } | undefined {
  if (step.dropAfterDeltas !== undefined) return { at: step.dropAfterDeltas, how: "drop" };
  if (step.endAfterDeltas !== undefined) return { at: step.endAfterDeltas, how: "end" };
  if (step.errorAfterDeltas !== undefined) return { at: step.errorAfterDeltas, how: "error" };
  return undefined;
}

/** The bearer token or x-api-key a request carried, for servers that echo it as real ones do. */
export function presentedKey(request: RecordedRequest): string {
  const header = request.headers["x-api-key"] ?? request.headers.authorization ?? "";
  return String(header).replace(/^Bearer\s+/i, "");
}

/** A provider's frames for a streamed answer. */
export interface Frames {
  start: string;
  delta(text: string): string;
  finish(step: Extract<Step, { reply: "text" }>): string;
  /** The provider's in-stream error frame. */
  error: string;
}

/** Plays a text step: the opening frames, the deltas (slowly, if asked), then the ending or the cut. */
export async function playText(step: Extract<Step, { reply: "text" }>, writer: StreamWriter, frames: Frames): Promise<void> {
  if (!(await writer.write(frames.start))) return;
  const cut = cutPoint(step);
  for (const [index, delta] of step.deltas.entries()) {
    if (cut && index === cut.at) break;
    if (step.delayMs) await writer.pause(step.delayMs);
    if (!(await writer.write(frames.delta(delta)))) return;
  }
  if (cut?.how === "drop") {
    writer.drop();
    return;
  }
  if (cut?.how === "error") await writer.write(frames.error);
  else if (cut?.how !== "end") await writer.write(frames.finish(step));
  writer.end();
}
