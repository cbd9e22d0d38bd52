import os from "node:os";
import path from "node:path";
import type { Hono } from "hono";
import { z } from "zod";
import { toExportJson, toImportJson, toPlainJson, type Chunkpad } from "../index.js";
import { parsed } from "./api-shapes.js";

/** A path on this computer as the user types it ("~/Backups/notes.zip"). */
export const localPath = z.string().min(1, "give a path on this computer").max(4096).transform((value) => (value === "~" || value.startsWith("~/") ? path.join(os.homedir(), value.slice(1)) : value));
export const removeFolderQuery = z.object({ deleteChunkFiles: z.enum(["true", "false"]).optional() });
export const exportBody = z.object({ file: localPath, folders: z.array(z.string().min(1)).optional(), withSources: z.boolean().optional() });
/** An archive never chooses where its files go: the folder to restore into is required. */
export const importBody = z.object({ file: localPath, into: localPath });

/**
 * The Data section of the web app's Settings: remove an added folder, export the index to an
 * archive, import one — what `chunkpad remove`, `export` and `import` do, with paths on this
 * computer (the same trust as the folder picker: the page is this computer's user).
 */
export function registerDataRoutes(app: Hono, chunkpad: Chunkpad, folderPath: (id: string) => Promise<string>): void {
  app.delete("/api/folders/:folder", async (c) => {
    const query = parsed(removeFolderQuery, c.req.query());
    const removed = await chunkpad.removeFolder(await folderPath(c.req.param("folder")), { deleteChunkFiles: query.deleteChunkFiles === "true" });
    return c.json(toPlainJson(removed) as object);
  });
  app.post("/api/export", async (c) => {
    const body = parsed(exportBody, await c.req.json().catch(() => undefined));
    return c.json(toPlainJson(toExportJson(await chunkpad.exportArchive(body.file, { ...(body.folders ? { folders: body.folders } : {}), withSources: body.withSources === true }))) as object);
  });
  app.post("/api/import", async (c) => {
    const body = parsed(importBody, await c.req.json().catch(() => undefined));
    const { report, embedded } = await chunkpad.importArchive(body.file, { into: body.into });
    return c.json(toPlainJson(toImportJson({ ...report, embedded })) as object);
  });
}
