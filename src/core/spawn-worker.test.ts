import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { spawnModuleWorker } from "./spawn-worker.js";

const chatty = "../../test/fixtures/chatty-worker";

describe("spawnModuleWorker", () => {
  it("captures what a worker prints on stdout instead of passing it to the process's stdout", async () => {
    let captured = "";
    const worker = spawnModuleWorker(import.meta.url, chatty, { onOutput: (text) => (captured += text) });
    const [message] = (await once(worker, "message")) as [string];
    await worker.terminate();
    expect(message).toBe("done");
    expect(captured).toContain("chatty library: a warning on stdout");
    expect(captured).toContain("chatty library: a second line");
  });
});
