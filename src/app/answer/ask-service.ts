import { ChunkpadError } from "../../core/errors.js";
import {
  createSecretStore,
  SECRET_PROVIDERS,
  type DownloadOffer,
  type KeyDescription,
  type RetryPolicy,
  type SecretProvider,
  type SecretStore,
} from "../../llm/index.js";
import { openChatStore, type ChatStore, type ConversationSummary } from "../../store/index.js";
import type { MainStore } from "../../store/index.js";
import { answerFromChunks, askQuestion, type AnswerInput, type AskDependencies, type AskEvent, type AskOptions } from "./ask.js";
import { createChatSession, type ChatSession, type ChatSessionOptions } from "./ask-session.js";
import type { ChunkpadConfig } from "../settings/config.js";
import { deleteConversation, getConversation, listConversations, type ConversationView } from "./conversations.js";
import { createLlmSetup } from "./llm-setup.js";
import type { DownloadProgress } from "../../hub/download.js";
import { describeProviders, type ProviderStatus } from "./providers.js";
import type { ChunkpadPaths } from "../settings/paths.js";
import { questionTermWeights } from "./term-weights.js";
import { restoreSources } from "./restore-sources.js";
import type { SearchOptions, SearchReport } from "../search/search.js";

/**
 * Everything about answers for one open Chunkpad: ask, chat sessions, stored conversations and
 * API keys. Opens the chat database on first use and frees the local model on close.
 */

export interface AnswerServiceOptions {
  getConfig: () => ChunkpadConfig;
  getStore: () => MainStore;
  search: (question: string, options: SearchOptions) => Promise<SearchReport>;
  paths: ChunkpadPaths;
  env: NodeJS.ProcessEnv;
  /** Defaults to the OS keychain, then the environment, then a user-only file. */
  secrets?: SecretStore;
  fetch?: typeof globalThis.fetch;
  retry?: Partial<RetryPolicy>;
  /** Opens the chat store (the store registry's choice: SQLite beside the main database, or the shared PostgreSQL). */
  openChats?: () => ChatStore;
}

export interface AnswerService {
  ask(question: string, options?: AskOptions): AsyncGenerator<AskEvent>;
  /** Answers again from chunks already found (the user's toggles in `isIncluded`), without searching. */
  regenerate(input: AnswerInput): AsyncGenerator<AskEvent>;
  startChat(options?: ChatSessionOptions): Promise<ChatSession>;
  listConversations(): Promise<ConversationSummary[]>;
  /** By id or a unique start of it; NOT_FOUND when there is none. */
  getConversation(id: string): Promise<ConversationView>;
  /** Returns the full id of the conversation deleted. */
  deleteConversation(id: string): Promise<string>;
  /** Stores a key in the OS keychain, or a user-only file when there is none; says where. */
  setApiKey(provider: string, key: string): Promise<KeyDescription>;
  /** Where each provider's key comes from; never the key itself. */
  listApiKeys(): Promise<KeyDescription[]>;
  deleteApiKey(provider: string): Promise<KeyDescription>;
  /** Every LLM provider: which one a question would use, and what each is missing. */
  describeProviders(): Promise<ProviderStatus[]>;
  /**
   * Downloads the local answer model (the configured one) ahead of a question, as the app's
   * Settings offer it: only when `consent` agrees; returns where it is. Already there: no request.
   */
  downloadLocalModel(options: { consent: (offer: DownloadOffer) => boolean | Promise<boolean>; onProgress?: (progress: DownloadProgress) => void; signal?: AbortSignal }): Promise<{ path: string }>;
  close(): Promise<void>;
}

export function parseSecretProvider(value: string): SecretProvider {
  const name = value.trim().toLowerCase();
  if ((SECRET_PROVIDERS as readonly string[]).includes(name)) return name as SecretProvider;
  throw new ChunkpadError("INVALID_ARGUMENT", `Keys are kept for ${SECRET_PROVIDERS.join(" and ")}, not "${value}". Ollama and the local model need no key.`);
}

export function createAnswerService(options: AnswerServiceOptions): AnswerService {
  // CHUNKPAD_KEYCHAIN=off skips the OS keychain (CI, containers, tests that must not touch a real keychain).
  const keychainOff = options.env.CHUNKPAD_KEYCHAIN?.toLowerCase() === "off";
  const secrets = options.secrets ?? createSecretStore({ configDir: options.paths.configDir, env: options.env, ...(keychainOff ? { keyring: null } : {}) });
  const llm = createLlmSetup({
    getConfig: options.getConfig,
    secrets,
    modelsDir: options.paths.modelsDir,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  });
  let chats: ChatStore | undefined;
  const getChats = () => (chats ??= options.openChats ? options.openChats() : openChatStore({ path: options.paths.chatDatabasePath }));
  const dependencies: AskDependencies = {
    search: options.search,
    getConfig: options.getConfig,
    llm,
    chats: getChats,
    restoreSources: (sources) => restoreSources(options.getStore(), sources),
    termWeights: (question) => questionTermWeights(options.getStore(), question),
  };

  return {
    ask: (question, askOptions) => askQuestion(dependencies, question, askOptions),
    regenerate: (input) => answerFromChunks(dependencies, input),
    startChat: (sessionOptions) => createChatSession(dependencies, sessionOptions),
    listConversations: () => listConversations(getChats()),
    getConversation: (id) => getConversation(getChats(), async (refs) => await options.getStore().getChunks(refs), id),
    deleteConversation: (id) => deleteConversation(getChats(), id),
    describeProviders: async () =>
      describeProviders({
        config: options.getConfig(),
        secrets,
        modelsDir: options.paths.modelsDir,
        selected: (await llm.select()).provider,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    downloadLocalModel: async ({ consent, onProgress, signal }) => ({ path: await llm.downloadLocal({ consent, ...(onProgress ? { onProgress } : {}), ...(signal ? { signal } : {}) }) }),
    setApiKey: (provider, key) => secrets.set(parseSecretProvider(provider), key),
    listApiKeys: () => Promise.all(SECRET_PROVIDERS.map((provider) => secrets.describe(provider))),
    deleteApiKey: (provider) => secrets.delete(parseSecretProvider(provider)),
    async close() {
      await llm.close();
      const closing = chats;
      chats = undefined;
      await closing?.close();
    },
  };
}
