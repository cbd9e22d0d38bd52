import { describe, expect, it } from "vitest";
import { createProgressBar } from "./progress.js";

/** A terminal stream that keeps what was written; `columns` as a terminal reports it. */
function terminal(columns: number): NodeJS.WriteStream & { text: () => string } {
  let written = "";
  const stream = {
    isTTY: true,
    columns,
    write(chunk: string) {
      written += chunk;
      return true;
    },
    text: () => written,
  };
  return stream as unknown as NodeJS.WriteStream & { text: () => string };
}

describe("the progress bar", () => {
  it("shows the label on a terminal that reports no width", () => {
    const stream = terminal(0);
    const bar = createProgressBar(stream, true);
    bar.update(72, 72, "208 chunks/s");
    expect(stream.text()).toContain("100% 72/72 208 chunks/s");
  });

  it("shortens the label to fit a narrow terminal", () => {
    const stream = terminal(40);
    const bar = createProgressBar(stream, true);
    bar.update(72, 72, "a label far too long to fit beside the bar");
    const line = stream.text().replace("\r\x1b[2K", "");
    expect(line.length).toBeLessThan(40);
    expect(line).toMatch(/100% 72\/72 …/);
  });
});
