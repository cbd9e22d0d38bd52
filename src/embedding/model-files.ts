import * as fs from "node:fs";
import * as path from "node:path";

/** The files (hub-layout relative paths) that a model directory lacks. */
export function missingModelFiles(directory: string, files: string[]): string[] {
  return files.filter((file) => {
    try {
      return !fs.statSync(path.join(directory, ...file.split("/"))).isFile();
    } catch {
      return true;
    }
  });
}
