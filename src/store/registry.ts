import { ChunkpadError } from "../core/errors.js";
import type { ChatStore } from "./chat-contract.js";
import type { MainStore, StoreOpener } from "./contract.js";
import { openChatStore } from "./sqlite/chat-store.js";
import { openMainStore } from "./sqlite/sqlite-store.js";

/**
 * The backend registry: a store URL picks the backend. Unset (or a file path) is the embedded
 * SQLite store in the data folder; `postgres://` / `postgresql://` is PostgreSQL + pgvector,
 * loaded only when named (node-postgres is not read by a SQLite user's commands). Adding a
 * backend is one entry here and one folder under store/.
 */

export type StoreBackend = "sqlite" | "postgres";

export interface StoreLocation {
  backend: StoreBackend;
  /** Where the data lives: a file path, or the URL without its password. */
  location: string;
}

export interface OpenStoresOptions extends StoreOpener {
  /** CHUNKPAD_DATABASE_URL or store.url; undefined or empty: SQLite. */
  url?: string | undefined;
  /** The SQLite files and lock folder (used when the URL names no server). */
  sqlite: { databasePath: string; chatDatabasePath: string; lockDirectory: string; keywordIndexInMemory?: boolean };
}

export function backendOf(url: string | undefined): StoreBackend {
  if (url === undefined || url.trim() === "") return "sqlite";
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.trim())?.[1]?.toLowerCase();
  if (scheme === "postgres" || scheme === "postgresql") return "postgres";
  if (scheme === "sqlite" || scheme === "file") return "sqlite";
  throw new ChunkpadError(
    "CONFIG_INVALID",
    `The store URL "${scheme ?? url}:…" names no backend Chunkpad has. Use postgres://user@host/database for PostgreSQL, or unset CHUNKPAD_DATABASE_URL (and store.url) for the SQLite file in the data folder.`,
  );
}

/** Describes where a store lives without opening it (for `status`). */
export async function storeLocation(options: OpenStoresOptions): Promise<StoreLocation> {
  if (backendOf(options.url) === "sqlite") return { backend: "sqlite", location: options.sqlite.databasePath };
  const { describeUrl } = await import("./postgres/connection.js");
  return { backend: "postgres", location: describeUrl(options.url as string) };
}

/** Who opens the store, for its leases (chunkpad by default). */
function openerOf({ command = "chunkpad", machine }: StoreOpener): StoreOpener {
  return { command, ...(machine === undefined ? {} : { machine }) };
}

/** The main store for these settings. A server backend connects on first use, so opening never blocks. */
export function openStore(options: OpenStoresOptions): MainStore {
  if (backendOf(options.url) === "sqlite") {
    const { databasePath, lockDirectory, keywordIndexInMemory } = options.sqlite;
    return openMainStore({ path: databasePath, keywordIndexInMemory: keywordIndexInMemory ?? false, lockDirectory, ...openerOf(options) });
  }
  const url = options.url as string;
  return connectOnFirstUse<MainStore>(
    async () => (await import("./postgres/main-store.js")).openPostgresStore({ url, ...openerOf(options) }),
    { label: url, optimistic: { vectorAvailable: true, vectorUnavailableReason: null } },
  );
}

/** The chat store: the chat database beside SQLite's, or the same PostgreSQL database (a team shares conversations). */
export function openChats(options: OpenStoresOptions): ChatStore {
  if (backendOf(options.url) === "sqlite") return openChatStore({ path: options.sqlite.chatDatabasePath });
  const url = options.url as string;
  return connectOnFirstUse<ChatStore>(async () => (await import("./postgres/chat-store.js")).openPostgresChatStore({ url }), { label: url, optimistic: {} });
}

/**
 * A store whose every method first waits for the connection (made once, retried after a failure).
 * Plain values read before it is made are `optimistic` (vector support is known after connecting;
 * a vector call on a server without pgvector then says what is missing).
 */
function connectOnFirstUse<Store extends object>(open: () => Promise<Store>, { label, optimistic }: { label: string; optimistic: Record<string, unknown> }): Store {
  let opened: Store | undefined;
  let opening: Promise<Store> | undefined;
  let path: string | undefined;
  const ready = () =>
    (opening ??= open().then(
      (store) => (opened = store),
      (error: unknown) => {
        opening = undefined;
        throw error;
      },
    ));
  return new Proxy({} as Store, {
    get(_target, key) {
      if (key === "then") return undefined;
      if (key === "path") return (opened as { path?: string } | undefined)?.path ?? (path ??= redact(label));
      if (opened !== undefined && typeof (opened as Record<PropertyKey, unknown>)[key] !== "function") return (opened as Record<PropertyKey, unknown>)[key];
      if (typeof key === "string" && key in optimistic) return optimistic[key];
      if (key === "close") {
        // Never connected: nothing to close.
        return async () => {
          if (opening === undefined) return;
          const store = (await opening.catch(() => undefined)) as { close?: () => Promise<void> } | undefined;
          await store?.close?.();
        };
      }
      return async (...args: unknown[]) => {
        const store = await ready();
        return (store[key as keyof Store] as (...parameters: unknown[]) => unknown).apply(store, args);
      };
    },
  });
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://(unreadable URL)";
  }
}
