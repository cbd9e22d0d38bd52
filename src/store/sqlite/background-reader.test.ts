import { afterEach, describe, expect, it, vi } from "vitest";
import { createBackgroundReader, RETRY_AFTER_MS } from "./background-reader.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("background reader", () => {
  it("reads slice after slice until the work is done, then resolves every wait", async () => {
    let slices = 0;
    const reader = createBackgroundReader({ step: () => ++slices < 3 || (reader.done(), false), sliceMs: 5, enabled: true });
    reader.schedule();
    await reader.whenDone(false);
    expect(slices).toBe(3);
    reader.close();
  });

  it("goes on after a slice fails (a busy database): the index still gets ready, and status says so", async () => {
    vi.useFakeTimers();
    let slices = 0;
    let complete = false;
    const reader = createBackgroundReader({
      step: () => {
        slices += 1;
        if (slices === 2) throw new Error("database is locked");
        if (slices < 4) return true;
        complete = true;
        reader.done();
        return false;
      },
      sliceMs: 5,
      enabled: true,
    });
    reader.schedule();
    const ready = reader.whenDone(false);
    // The failed slice's retry is the only timer left: nothing else would wake an idle server.
    await vi.runAllTimersAsync();
    await ready;
    expect(complete).toBe(true);
    expect(slices).toBe(4);
    reader.close();
  });

  it("tries again every so often while it fails, and not once closed, so a closed store keeps no process alive", async () => {
    vi.useFakeTimers();
    let slices = 0;
    const reader = createBackgroundReader({
      step: () => {
        slices += 1;
        throw new Error("database is locked");
      },
      sliceMs: 5,
      enabled: true,
    });
    reader.schedule();
    await vi.advanceTimersByTimeAsync(RETRY_AFTER_MS * 2.5);
    expect(slices).toBe(3);
    reader.close();
    await vi.advanceTimersByTimeAsync(RETRY_AFTER_MS * 4);
    expect(slices).toBe(3);
    expect(vi.getTimerCount()).toBe(0);
  });
});
