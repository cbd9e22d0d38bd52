import { describe, expect, it } from "vitest";
import { backendOf, openStore, storeLocation } from "./registry.js";

const sqlite = { databasePath: "/data/chunkpad.db", chatDatabasePath: "/data/chunkpad_chat.db", lockDirectory: "/data/locks" };

describe("store registry", () => {
  it("picks SQLite when no URL is set, PostgreSQL for postgres:// and postgresql://", () => {
    expect(backendOf(undefined)).toBe("sqlite");
    expect(backendOf("  ")).toBe("sqlite");
    expect(backendOf("postgres://team@db.example/chunkpad")).toBe("postgres");
    expect(backendOf("PostgreSQL://team@db.example/chunkpad")).toBe("postgres");
  });

  it("says which backends exist when the URL names another", () => {
    expect(() => backendOf("mysql://team@db/chunkpad")).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringContaining("postgres://") }));
  });

  it("names the backend and where it lives, never the password", async () => {
    expect(await storeLocation({ sqlite })).toEqual({ backend: "sqlite", location: "/data/chunkpad.db" });
    const location = await storeLocation({ url: "postgres://team:hunter2@db.example:5432/chunkpad", sqlite });
    expect(location.backend).toBe("postgres");
    expect(location.location).not.toContain("hunter2");
    expect(location.location).toContain("db.example:5432/chunkpad");
  });

  it("connects to a server only on first use, and reports an unreachable one with what to check", async () => {
    // Port 9 (discard) on the loopback: nothing listens, so the connection is refused at once.
    const store = openStore({ url: "postgres://team:hunter2@127.0.0.1:9/chunkpad", sqlite });
    expect(store.path).not.toContain("hunter2");
    const failure = await store.listFolders().catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "DATABASE_ERROR", message: expect.stringContaining("CHUNKPAD_DATABASE_URL") });
    expect(String((failure as Error).message)).not.toContain("hunter2");
    await store.close();
  });
});
