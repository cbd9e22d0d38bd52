import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, runCli, touchLater, writeFile } from "./helpers/cli.js";
import { startServe, type RunningServer } from "./helpers/serve.js";

interface TreeFile {
  type: "file";
  name: string;
  path: string;
  chunkCount: number;
  includedCount: number;
  failed?: { code: string; message: string };
  conflict?: true;
  detail?: string;
}
interface TreeFolder {
  type: "folder";
  name: string;
  children: Array<TreeFile | TreeFolder>;
}

/**
 * The document tree, conflicts and Clear all data over real HTTP against a real `chunkpad serve`
 * and real files: what the web app's Documents and Settings views stand on.
 */
describe("chunkpad serve: the document tree, conflicts and clearing all data", () => {
  let home: string;
  let folder: string;
  let server: RunningServer;
  let info: RunningServer["info"];
  let folderId: string;

  const send = (method: string, pathname: string, body?: unknown) =>
    fetch(`${info.url}${pathname}`, { method, headers: { "content-type": "application/json", "x-chunkpad-token": info.token }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const files = async (): Promise<TreeFile[]> => {
    const response = await server.api(`/api/folders/${folderId}/tree`);
    expect(response.status).toBe(200);
    const flat: TreeFile[] = [];
    const walk = (node: TreeFolder) => node.children.forEach((child) => (child.type === "file" ? flat.push(child) : walk(child)));
    walk(((await response.json()) as { tree: TreeFolder }).tree);
    return flat;
  };

  beforeAll(async () => {
    home = makeTempDir("serve-docs");
    folder = path.join(home, "docs");
    writeFile(folder, "notes.txt", "The heron waits by the river.");
    writeFile(folder, "reports/q3.txt", "Quarterly figures for the kestrel survey.");
    writeFile(folder, "broken.pdf", "this is not a PDF at all");
    expect((await runCli(["add", folder], { home })).code).not.toBe(0);
    // A hand edit of a chunk file, then a change of its source: a conflict.
    fs.appendFileSync(path.join(folder, "_chunks", "notes.txt.md"), "\nMy note: herons nest in colonies.\n");
    fs.writeFileSync(path.join(folder, "notes.txt"), "The heron flew to the estuary.");
    touchLater(path.join(folder, "notes.txt"));
    server = await startServe(home, { env: { CHUNKPAD_KEYCHAIN: "off" } });
    info = server.info;
    folderId = (((await (await server.api(`/api/folders`)).json()) as { folders: Array<{ id: string }> }).folders[0] as { id: string }).id;
  });
  afterAll(async () => {
    await server.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("shows each file of the tree with its state: the failed one with why, a conflict before the run that reports it", async () => {
    const byPath = new Map((await files()).map((file) => [file.path, file]));
    expect([...byPath.keys()].sort()).toEqual(["broken.pdf", "notes.txt", "reports/q3.txt"]);
    expect(byPath.get("broken.pdf")?.failed?.code).toMatch(/^PARSE_/);
    expect(byPath.get("broken.pdf")?.chunkCount).toBe(0);
    // Seen from the files alone, before any run: the source changed and the chunk file was edited.
    expect(byPath.get("notes.txt")?.conflict).toBe(true);
    expect(byPath.get("reports/q3.txt")?.conflict).toBeUndefined();
    const job = (await (await send("POST", "/api/jobs", { kind: "process", folder: folderId })).json()) as { id: string };
    await expect.poll(async () => JSON.stringify(await (await server.api(`/api/jobs/${job.id}`)).json()), { timeout: 30_000 }).toMatch(/"state":"done"/);
    const after = new Map((await files()).map((file) => [file.path, file]));
    expect(after.get("notes.txt")?.conflict).toBe(true);
    expect(after.get("notes.txt")?.detail).toMatch(/conflict/);
    expect(after.get("reports/q3.txt")).toMatchObject({ chunkCount: 1, includedCount: 1 });
    expect(after.get("reports/q3.txt")?.conflict).toBeUndefined();
    expect(after.get("reports/q3.txt")?.failed).toBeUndefined();
  });

  it("settles a conflict by keeping the edit, and refuses a file outside the folder", async () => {
    const outside = await send("POST", `/api/folders/${folderId}/resolve`, { file: "../../etc/passwd", choice: "keep-mine" });
    expect(outside.status).toBe(400);
    expect(((await outside.json()) as { message: string }).message).toMatch(/not a file inside/);
    const kept = await send("POST", `/api/folders/${folderId}/resolve`, { file: "notes.txt", choice: "keep-mine" });
    expect(kept.status).toBe(200);
    expect(await kept.json()).toMatchObject({ relativePath: "notes.txt", resolved: true, choice: "keep-mine" });
    expect((await files()).find((file) => file.path === "notes.txt")?.conflict).toBeUndefined();
    const search = (await (await server.api(`/api/search?q=colonies&mode=keyword`)).json()) as { results: Array<{ relativePath: string }> };
    expect(search.results.map((result) => result.relativePath)).toEqual(["notes.txt"]);
  });

  it("never starts the local model's download without consent", async () => {
    const refused = await send("POST", "/api/jobs", { kind: "local-model" });
    expect(refused.status).not.toBe(202);
    expect(((await refused.json()) as { code: string }).code).toBe("MODEL_CONSENT_REQUIRED");
  });

  it("clears all data only when confirmed, keeps the documents and chunk files, and works again afterwards", async () => {
    const unconfirmed = await send("POST", "/api/reset", {});
    expect(unconfirmed.status).toBe(400);
    expect(((await unconfirmed.json()) as { message: string }).message).toMatch(/delete all data/);
    const withoutToken = await fetch(`${info.url}/api/reset`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ confirm: "delete all data" }) });
    expect(withoutToken.status).toBe(401);

    const cleared = await send("POST", "/api/reset", { confirm: "delete all data" });
    expect(cleared.status).toBe(200);
    const report = (await cleared.json()) as { deleted: Array<{ kind: string; target: string }>; failed: unknown[] };
    expect(report.failed).toEqual([]);
    expect(report.deleted.map((item) => item.kind)).toContain("database");
    expect(fs.existsSync(path.join(home, "data", "chunkpad.db"))).toBe(false);
    expect(((await (await server.api(`/api/folders`)).json()) as { folders: unknown[] }).folders).toEqual([]);
    expect(((await (await server.api(`/api/search?q=heron&mode=keyword`)).json()) as { results: unknown[] }).results).toEqual([]);
    // Documents and hand-edited chunk files are the user's.
    expect(fs.readFileSync(path.join(folder, "notes.txt"), "utf8")).toContain("estuary");
    expect(fs.readFileSync(path.join(folder, "_chunks", "notes.txt.md"), "utf8")).toContain("colonies");

    // The same server adds the folder again into a fresh database.
    const job = (await (await send("POST", "/api/jobs", { kind: "process", folder })).json()) as { id: string };
    // A fresh database is made first (on PostgreSQL, its schema): the job may take a while on a busy machine.
    await expect.poll(async () => JSON.stringify(await (await server.api(`/api/jobs/${job.id}`)).json()), { timeout: 30_000 }).toMatch(/"state":"done"/);
    const again = (await (await server.api(`/api/search?q=heron&mode=keyword`)).json()) as { results: Array<{ relativePath: string }> };
    expect(again.results.map((result) => result.relativePath)).toContain("notes.txt");
  });
});
