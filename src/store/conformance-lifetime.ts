import { describe, expect, it } from "vitest";
import type { LeaseHolder, MainStore } from "./contract.js";

/**
 * Part of runStoreSuite (conformance.ts): folder leases and destroying a store. `fresh` opens a
 * new, empty store; `reopen` opens the same data again as a second process would.
 */
export function lifetimeCases(fresh: () => Promise<MainStore>, reopen: ((store: MainStore) => Promise<MainStore>) | undefined, leases = true): void {
  // PGlite is one database session for every connection, so advisory locks cannot exclude: its
  // leases are tested on a real PostgreSQL server instead (test/postgres-server.test.ts).
  describe.skipIf(!leases)("folder leases", () => {
    it("lets one holder at a time write a folder; another fails at once or waits, told who holds it", async () => {
      const store = await fresh();
      const other = reopen ? await reopen(store) : store;
      try {
        const release = await store.lease(["/zoo"], { purpose: "processing" });
        await expect(other.lease(["/zoo"], { wait: false })).rejects.toMatchObject({ code: "FOLDER_BUSY" });
        // Another folder is free.
        await (await other.lease(["/garden"], { wait: false }))();

        const waiting: LeaseHolder[] = [];
        let taken = false;
        // The waiter says once that it waits: the test waits for that event, however busy the machine.
        let toldWaiting: () => void = () => undefined;
        const told = new Promise<void>((resolve) => (toldWaiting = resolve));
        const waiter = other.lease(["/zoo"], { onWaiting: (holder) => (waiting.push(holder), toldWaiting()) }).then((releaseWaiter) => {
          taken = true;
          return releaseWaiter;
        });
        await told;
        expect(taken).toBe(false);
        expect(waiting[0]).toMatchObject({ command: expect.stringContaining("processing") });
        await release();
        await (await waiter)();
        expect(taken).toBe(true);
        // Released: free again.
        await (await store.lease(["/zoo"], { wait: false }))();
      } finally {
        if (other !== store) await other.close();
      }
    });

    it("stops waiting when the signal aborts", async () => {
      const store = await fresh();
      const release = await store.lease(["/zoo"]);
      const controller = new AbortController();
      const waiter = store.lease(["/zoo"], { signal: controller.signal, onWaiting: () => controller.abort() });
      await expect(waiter).rejects.toMatchObject({ code: "CANCELLED" });
      await release();
    });
  });

  describe("destroy", () => {
    it.skipIf(reopen === undefined)("deletes everything the store holds; opened again it is empty", async () => {
      const store = await fresh();
      const folder = await store.upsertFolder("/zoo", "/zoo/_chunks");
      await store.syncDocument({ folderId: folder.id, relativePath: "a.md", title: "a", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content: "The heron waits.", meta: {} }] });
      await store.setMeta("k", "v");
      const again = await (reopen as (store: MainStore) => Promise<MainStore>)(store);
      await store.destroy();
      await again.close();
      const after = await (reopen as (store: MainStore) => Promise<MainStore>)(store);
      try {
        expect(await after.listFolders()).toEqual([]);
        expect(await after.listChunks()).toEqual([]);
        expect(await after.getMeta("k")).toBeNull();
      } finally {
        await after.close();
      }
    });
  });
}
