import { describe, expect, it } from "vitest";
import type { LeaseHolder, MainStore, StoreMachine, StoreOpener } from "./contract.js";

/**
 * Part of runStoreSuite (conformance.ts): folder leases and destroying a store. `fresh` opens a
 * new, empty store; `reopen` opens the same data again as a second process would.
 */
export function lifetimeCases(fresh: (opener?: StoreOpener) => Promise<MainStore>, reopen: ((store: MainStore, opener?: StoreOpener) => Promise<MainStore>) | undefined, leases = true): void {
  // Two machines sharing the store, as the app names them (its machine id and name).
  const laptop: StoreMachine = { id: "0b7e4c1a-laptop", name: "laptop" };
  const desktop: StoreMachine = { id: "5d2f9e33-desktop", name: "desktop" };
  // PGlite is one database session for every connection, so advisory locks cannot exclude: its
  // leases are tested on a real PostgreSQL server instead (test/postgres-server.test.ts).
  describe.skipIf(!leases)("folder leases", () => {
    it("lets one holder at a time write a folder; another fails at once or waits, told which machine holds it", async () => {
      const store = await fresh({ machine: laptop });
      const other = reopen ? await reopen(store, { machine: desktop }) : store;
      try {
        const release = await store.lease(["/zoo"], { purpose: "processing" });
        // Named as folder ownership names a machine: host names repeat across a team, machine ids do not.
        await expect(other.lease(["/zoo"], { wait: false })).rejects.toMatchObject({
          code: "FOLDER_BUSY",
          message: expect.stringContaining(`on the machine "laptop" (id ${laptop.id})`),
          details: { folder: "/zoo", machine: laptop, command: expect.stringContaining("processing") },
        });
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
        expect(waiting[0]).toMatchObject({ machine: laptop, command: expect.stringContaining("processing") });
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
