import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chunkpadRejection } from "../../test/helpers/rejection.js";
import { DEFAULT_CHUNKING, DEFAULT_PARSE_LIMITS } from "../core/types.js";
import { chunkDocument } from "../chunking/chunker.js";
import { createParseRunner, type ParseRunner } from "./parse-runner.js";

const misbehaving = { callerUrl: import.meta.url, baseName: "../../test/fixtures/misbehaving-parse-worker" };
const job = (name: string) => ({ path: `/nowhere/${name}`, limits: DEFAULT_PARSE_LIMITS });

describe("parse runner", () => {
  let runner: ParseRunner | undefined;
  afterEach(async () => {
    await runner?.close();
  });

  it("stops a parser stuck in a loop, reports PARSE_TIMEOUT, and keeps serving the next files", async () => {
    runner = createParseRunner({ workers: 1, timeoutMs: 200, maxHeapMb: 256, worker: misbehaving });
    const stuck = await chunkpadRejection(runner.parse(job("hang.pdf")));
    expect(stuck.code).toBe("PARSE_TIMEOUT");
    expect(stuck.message).toMatch(/perFileTimeoutSeconds/);
    await expect(runner.parse(job("good.txt"))).resolves.toMatchObject({ blocks: [{ text: "fine" }] });
  });

  it("gives a file its whole time limit once the worker has started, however long the start took", async () => {
    runner = createParseRunner({ workers: 1, timeoutMs: 100, maxHeapMb: 256, worker: { callerUrl: import.meta.url, baseName: "../../test/fixtures/slow-start-parse-worker" } });
    await expect(runner.parse(job("first.txt"))).resolves.toMatchObject({ blocks: [{ text: "started late" }] });
  });

  it("reports a worker that never finishes starting as a failed file, and starts another for the next", async () => {
    runner = createParseRunner({ workers: 1, timeoutMs: 100, startupTimeoutMs: 300, maxHeapMb: 256, worker: { callerUrl: import.meta.url, baseName: "../../test/fixtures/never-ready-parse-worker" } });
    const stuck = await chunkpadRejection(runner.parse(job("first.txt")));
    expect(stuck.code).toBe("PARSE_FAILED");
    expect(stuck.message).toMatch(/did not start within 0\.3 s/);
    expect((await chunkpadRejection(runner.parse(job("second.txt")))).code).toBe("PARSE_FAILED");
  });

  it("reports a parser that runs out of memory as too large, not as a crash of the run", async () => {
    runner = createParseRunner({ workers: 1, timeoutMs: 60_000, maxHeapMb: 64, worker: misbehaving });
    expect((await chunkpadRejection(runner.parse(job("oom.docx")))).code).toBe("PARSE_TOO_LARGE");
    await expect(runner.parse(job("after.txt"))).resolves.toMatchObject({ title: "/nowhere/after.txt" });
  });

  it("chunks in the worker when asked, into exactly the chunks this thread would make", async () => {
    runner = createParseRunner({ workers: 1, timeoutMs: 60_000, maxHeapMb: 512 });
    const file = path.resolve("README.md");
    const { drafts, ...document } = await runner.parse({ path: file, limits: DEFAULT_PARSE_LIMITS, chunking: { chunkSizeTokens: 200, chunkOverlapTokens: 30 } });
    expect(drafts?.length).toBeGreaterThan(20);
    const plain = await runner.parse({ path: file, limits: DEFAULT_PARSE_LIMITS });
    expect(drafts).toEqual(chunkDocument(plain, { chunkSizeTokens: 200, chunkOverlapTokens: 30 }));
    // The chunks hold the text: the blocks do not cross back to this thread a second time.
    expect(document.blocks).toEqual([]);
    expect(document.title).toBe(plain.title);
    expect(plain.drafts).toBeUndefined();
    expect(chunkDocument(plain, DEFAULT_CHUNKING).length).toBeGreaterThan(0);
  });

  it("parses quick files one after another in one worker, and starts another beside a file that takes long", async () => {
    runner = createParseRunner({ workers: 2, timeoutMs: 60_000, maxHeapMb: 128, worker: misbehaving, nextWorkerAfterMs: 60_000 });
    const threads = new Set<string>();
    for (let pair = 0; pair < 10; pair++) {
      // Two at a time, as a run asks: the second waits for the first worker rather than starting another.
      for (const outcome of await Promise.all([runner.parse(job(`a${pair}.md`)), runner.parse(job(`b${pair}.md`))])) threads.add(outcome.warnings.join());
    }
    expect(threads.size).toBe(1);
    await runner.close();

    runner = createParseRunner({ workers: 2, timeoutMs: 60_000, maxHeapMb: 128, worker: misbehaving, nextWorkerAfterMs: 0 });
    const first = await runner.parse(job("first.md"));
    const stuck = runner.parse(job("hang.pdf")).catch((error: unknown) => error);
    // The notes behind the file that never finishes are parsed all the same, by a second worker.
    const notes = await Promise.all([runner.parse(job("c.md")), runner.parse(job("d.md"))]);
    expect(new Set(notes.map((outcome) => outcome.warnings.join()))).toEqual(new Set([notes[0]?.warnings.join()]));
    expect(notes[0]?.warnings).not.toEqual(first.warnings);
    await runner.close();
    runner = undefined;
    await stuck;
  });

  it("gives a waiting file to the worker that answered while this thread was held up, rather than starting another", async () => {
    runner = createParseRunner({ workers: 2, timeoutMs: 60_000, maxHeapMb: 128, worker: misbehaving, nextWorkerAfterMs: 20 });
    const first = await runner.parse(job("first.md"));
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-parse-runner-"));
    const answered = path.join(folder, "a.signal");
    try {
      const a = runner.parse({ ...job("a.md"), path: answered });
      const b = runner.parse(job("b.md"));
      // Let the first job reach its worker, then hold this thread (a long commit, a busy machine)
      // until that worker has answered and the second job's wait for a worker is over.
      await new Promise((resolve) => setImmediate(resolve));
      const heldSince = Date.now();
      while (!fs.existsSync(answered) || Date.now() - heldSince < 100) {
        // Busy on purpose: the event loop must not run.
      }
      const outcomes = await Promise.all([a, b]);
      expect(outcomes.map((outcome) => outcome.warnings)).toEqual([first.warnings, first.warnings]);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it("starts a second worker at once beside a file that may take seconds (a PDF), however long quick files wait", async () => {
    runner = createParseRunner({ workers: 2, timeoutMs: 60_000, maxHeapMb: 128, worker: misbehaving, nextWorkerAfterMs: 60_000 });
    const first = await runner.parse(job("first.md"));
    const stuck = runner.parse({ ...job("hang.pdf"), mayTakeSeconds: true }).catch((error: unknown) => error);
    // Without the hint this note would wait a minute for the worker busy with the PDF.
    const note = await runner.parse(job("c.md"));
    expect(note.warnings).not.toEqual(first.warnings);
    await runner.close();
    runner = undefined;
    await stuck;
  }, 20_000);

  it("reports a worker that exits as a failed file", async () => {
    runner = createParseRunner({ workers: 2, timeoutMs: 60_000, maxHeapMb: 128, worker: misbehaving });
    const [exited, fine] = await Promise.allSettled([runner.parse(job("exit.rtf")), runner.parse(job("fine.md"))]);
    expect(exited.status).toBe("rejected");
    expect(fine.status).toBe("fulfilled");
  });

  it("reports a real parser stopped by its time limit as a timeout (retried later), and honours a longer limit per job", async () => {
    runner = createParseRunner({ workers: 1, timeoutMs: 20, maxHeapMb: 512 });
    // A 14-page paper: far more than 20 ms of work (≈ 0.3 s warm), a second or so in all.
    const paper = path.resolve("../shared/corpus/pdf.js/pdfs/tracemonkey.pdf");
    const stopped = await chunkpadRejection(runner.parse({ path: paper, limits: DEFAULT_PARSE_LIMITS }));
    expect(stopped.code).toBe("PARSE_TIMEOUT");
    expect(stopped.message).toMatch(/--timeout/);
    await expect(runner.parse({ path: paper, limits: DEFAULT_PARSE_LIMITS, timeoutMs: 60_000 })).resolves.toMatchObject({ pageCount: 14 });
  });

  it("parses real files through the real worker, with classified errors", async () => {
    runner = createParseRunner({ workers: 1, timeoutMs: 60_000, maxHeapMb: 512 });
    const pdf = path.resolve("../shared/corpus/pdf.js/pdfs/tracemonkey.pdf");
    const document = await runner.parse({ path: pdf, limits: DEFAULT_PARSE_LIMITS });
    expect(document.pageCount).toBe(14);
    expect(document.blocks.some((block) => block.page === 14)).toBe(true);
    const encrypted = path.resolve("../shared/corpus/pdf.js/pdfs/issue6010_1.pdf");
    expect((await chunkpadRejection(runner.parse({ path: encrypted, limits: DEFAULT_PARSE_LIMITS }))).code).toBe("PARSE_ENCRYPTED");
    await expect(runner.parse({ path: encrypted, password: "abc", limits: DEFAULT_PARSE_LIMITS })).resolves.toMatchObject({ blocks: expect.any(Array) });
  });
});
