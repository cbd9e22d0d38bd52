/** A one-line progress bar on stderr; silent when stderr is not a terminal. */
export interface ProgressBar {
  update(done: number, total: number, label?: string): void;
  /** Prints a line above the bar (a warning) without breaking it. */
  log(line: string): void;
  stop(): void;
}

const BAR_WIDTH = 24;
const REDRAW_INTERVAL_MS = 80;

export function createProgressBar(stream: NodeJS.WriteStream = process.stderr, enabled = Boolean(stream.isTTY)): ProgressBar {
  let lastDraw = 0;
  let drawn = false;
  let lastLine = "";
  const clear = () => {
    if (drawn) stream.write("\r\x1b[2K");
    drawn = false;
  };
  return {
    update(done, total, label = "") {
      if (!enabled) return;
      const now = Date.now();
      if (done < total && now - lastDraw < REDRAW_INTERVAL_MS) return;
      lastDraw = now;
      const fraction = total > 0 ? Math.min(1, done / total) : 0;
      const filled = Math.round(fraction * BAR_WIDTH);
      const bar = `${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)}`;
      // A pseudo-terminal may report 0 columns: treat that as unknown.
      const columns = stream.columns || 80;
      const head = `${bar} ${String(Math.round(fraction * 100)).padStart(3)}% ${done}/${total} `;
      const room = Math.max(0, columns - head.length - 1);
      const tail = label.length > room ? `…${label.slice(label.length - room + 1)}` : label;
      lastLine = head + tail;
      clear();
      stream.write(lastLine);
      drawn = true;
    },
    log(line) {
      if (!enabled) {
        stream.write(`${line}\n`);
        return;
      }
      clear();
      stream.write(`${line}\n`);
      if (lastLine) {
        stream.write(lastLine);
        drawn = true;
      }
    },
    stop() {
      if (enabled) clear();
      lastLine = "";
    },
  };
}
