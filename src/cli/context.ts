import type { Chunkpad } from "../index.js";
import type { CliIo } from "./shared/io.js";

/** What every command gets: the terminal and the Chunkpad it opens on first use. */

export interface CliContext {
  io: CliIo;
  /** The package version (package.json). */
  version: string;
  /** Set by a command whose run completed with problems worth a non-zero exit. */
  exitCode: number;
  /** Opens Chunkpad on first use, so `--help` never touches the disk. */
  chunkpad(): Chunkpad;
}
