import { describeLeaseHolder, type AddFolderOptions } from "../../index.js";
import type { CliContext } from "../context.js";

/** The folder lock as the commands that write a folder (add, process, embed, remove) show it. */

export const NO_WAIT_HELP = "fail at once (FOLDER_BUSY) when another Chunkpad is working on the folder, instead of waiting for it";

/** The lock options every writing command passes: wait with a notice on stderr, or fail at once with --no-wait. */
export function lockOptions(context: CliContext, wait: boolean | undefined): Pick<AddFolderOptions, "wait" | "onWaiting"> {
  return {
    wait: wait !== false,
    onWaiting: (holder) =>
      context.io.stderr.write(`Waiting for ${describeLeaseHolder(holder)} to finish with ${holder.folder}… (Ctrl-C to stop)\n`),
  };
}
