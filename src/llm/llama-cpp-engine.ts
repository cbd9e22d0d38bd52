import fs from "node:fs";
import type { ChatHistoryItem, Llama, LlamaContext, LlamaModel } from "node-llama-cpp";
import { ChunkpadError, isChunkpadError, describeError } from "../core/errors.js";
import { importOptional } from "../core/optional-module.js";
import type { ChatMessage, FinishReason, TokenUsage } from "../core/types.js";

/**
 * node-llama-cpp behind a small interface: load a GGUF once, then generate one answer at a time
 * with the model's own chat template (LlamaChatSession picks it from the GGUF metadata).
 * The library is imported on first use, so the cloud providers never pay for it.
 */

/** Enough for ten 400-token chunks, the question and an answer; llama.cpp shrinks it to fit RAM. */
export const LOCAL_CONTEXT_SIZE_TOKENS = 8_192;
const MINIMUM_CONTEXT_SIZE_TOKENS = 2_048;
const GGUF_MAGIC = "GGUF";
const GGUF_VERSIONS = new Set([1, 2, 3]);

export interface GenerateOptions {
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
  onTextChunk: (text: string) => void;
}

export interface LocalGenerator {
  generate(messages: ChatMessage[], options: GenerateOptions): Promise<{ reason: FinishReason; usage: TokenUsage }>;
  dispose(): Promise<void>;
}

export interface LlamaCppEngineOptions {
  contextSizeTokens?: number;
  /** CPU threads for generation; llama.cpp's default (all cores) unless set. */
  threads?: number;
  /** node-llama-cpp's own log lines (warnings and errors), for a face to show or drop. */
  onLog?: (message: string) => void;
}

/**
 * Checks the file is there and starts like a GGUF before llama.cpp sees it: a file with a
 * GGUF magic but a garbage version can keep the parser busy for minutes.
 */
export function checkGgufFile(modelPath: string): void {
  let header: Buffer;
  try {
    const handle = fs.openSync(modelPath, "r");
    try {
      header = Buffer.alloc(8);
      const read = fs.readSync(handle, header, 0, 8, 0);
      header = header.subarray(0, read);
    } finally {
      fs.closeSync(handle);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new ChunkpadError(
        "MODEL_NOT_DOWNLOADED",
        `The local model ${modelPath} is not there.`,
        { nextSteps: [{ action: "download-model", model: "llm" }, { action: "set-up-llm" }] },
      );
    }
    throw new ChunkpadError("MODEL_LOAD_FAILED", `Cannot read the local model ${modelPath}: ${describeError(error)}.`, { cause: error });
  }
  const magic = header.subarray(0, 4).toString("latin1");
  const version = header.length >= 8 ? header.readUInt32LE(4) : -1;
  if (magic !== GGUF_MAGIC || !GGUF_VERSIONS.has(version)) {
    throw loadFailed(modelPath, magic !== GGUF_MAGIC ? "it is not a GGUF file" : `unknown GGUF version ${version}`);
  }
}

export async function loadLlamaCppGenerator(modelPath: string, options: LlamaCppEngineOptions = {}): Promise<LocalGenerator> {
  checkGgufFile(modelPath);
  const { getLlama, LlamaChatSession, LlamaLogLevel } = await importOptional("node-llama-cpp", () => import("node-llama-cpp"));
  let llama: Llama | undefined;
  let model: LlamaModel | undefined;
  let context: LlamaContext;
  try {
    llama = await getLlama({
      gpu: false,
      build: "never",
      logLevel: LlamaLogLevel.warn,
      logger: (_level, message) => options.onLog?.(message),
    });
    model = await llama.loadModel({ modelPath });
    // Never ask for more than the model was trained on, or a small model fails to load.
    const contextSize = Math.min(options.contextSizeTokens ?? LOCAL_CONTEXT_SIZE_TOKENS, model.trainContextSize);
    context = await model.createContext({
      contextSize: { min: Math.min(MINIMUM_CONTEXT_SIZE_TOKENS, contextSize), max: contextSize },
      ...(options.threads ? { threads: options.threads } : {}),
    });
  } catch (error) {
    await model?.dispose().catch(() => undefined);
    await llama?.dispose().catch(() => undefined);
    if (isChunkpadError(error)) throw error;
    if (error instanceof Error && error.name === "NoBinaryFoundError") {
      throw new ChunkpadError(
        "MODEL_LOAD_FAILED",
        "node-llama-cpp has no prebuilt llama.cpp binary for this machine, so the local model cannot run here.",
        { cause: error, nextSteps: [{ action: "choose-provider" }] },
      );
    }
    throw loadFailed(modelPath, describeError(error), error);
  }
  const sequence = context.getSequence();
  // One answer at a time: the context has one sequence.
  let queue: Promise<unknown> = Promise.resolve();

  async function generate(messages: ChatMessage[], generateOptions: GenerateOptions) {
    const { history, prompt } = toChatHistory(messages);
    const before = sequence.tokenMeter.getState();
    const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false });
    try {
      session.setChatHistory(history);
      const result = await session.promptWithMeta(prompt, {
        onTextChunk: generateOptions.onTextChunk,
        signal: generateOptions.signal,
        stopOnAbortSignal: true,
        ...(generateOptions.temperature === undefined ? {} : { temperature: generateOptions.temperature }),
        ...(generateOptions.maxTokens === undefined ? {} : { maxTokens: generateOptions.maxTokens }),
      });
      const after = sequence.tokenMeter.getState();
      return {
        reason: finishReason(result.stopReason),
        usage: { inputTokens: after.usedInputTokens - before.usedInputTokens, outputTokens: after.usedOutputTokens - before.usedOutputTokens },
      };
    } finally {
      session.dispose({ disposeSequence: false });
      await sequence.clearHistory();
    }
  }

  return {
    generate(messages, generateOptions) {
      const run = queue.then(() => generate(messages, generateOptions));
      queue = run.catch(() => undefined);
      return run;
    },
    async dispose() {
      await context.dispose();
      await model?.dispose();
      await llama?.dispose();
    },
  };
}

/** Everything before the last user message becomes history; that message is the prompt. */
export function toChatHistory(messages: ChatMessage[]): { history: ChatHistoryItem[]; prompt: string } {
  const last = messages.at(-1);
  if (!last || last.role !== "user") {
    throw new ChunkpadError("INVALID_ARGUMENT", "A conversation for the local model must end with a user message.");
  }
  const history: ChatHistoryItem[] = messages.slice(0, -1).map((message) => {
    if (message.role === "system") return { type: "system", text: message.content };
    if (message.role === "user") return { type: "user", text: message.content };
    return { type: "model", response: [message.content] };
  });
  return { history, prompt: last.content };
}

function finishReason(stopReason: string): FinishReason {
  if (stopReason === "eogToken" || stopReason === "stopGenerationTrigger" || stopReason === "customStopTrigger") return "stop";
  if (stopReason === "maxTokens") return "length";
  if (stopReason === "abort") return "cancelled";
  return "other";
}

function loadFailed(modelPath: string, reason: string, cause?: unknown): ChunkpadError {
  return new ChunkpadError(
    "MODEL_LOAD_FAILED",
    `The local model ${modelPath} could not be loaded (${reason}). Delete the file and let Chunkpad download it again.`,
    { cause, nextSteps: [{ action: "choose-provider" }] },
  );
}
