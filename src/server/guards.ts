import os from "node:os";
import path from "node:path";
import { ChunkpadError, describeBroadFolder } from "../index.js";

/**
 * The checks a request gets before it touches the disk, the same as the CLI's: a folder to
 * process is named by its full path, and the home folder or the root of the disk need the
 * user's explicit yes; an uploaded file's name is a plain, valid file name.
 */

export function checkProcessTarget(folder: string, confirmed: boolean): void {
  if (!path.isAbsolute(folder)) throw new ChunkpadError("INVALID_ARGUMENT", `folder: "${folder}" is not a full path. Give the folder's full path (or an added folder's id from /api/folders).`);
  if (confirmed) return;
  const broad = describeBroadFolder(folder, process.env.HOME ?? os.homedir());
  if (broad) {
    throw new ChunkpadError("INVALID_ARGUMENT", `Not adding ${broad.target}: it is ${broad.what}, and Chunkpad would parse every document under it and write a _chunks/ folder there. Choose a folder of documents instead, or send confirmBroadFolder: true if the user really means it.`);
  }
}

/** Characters Windows or macOS cannot keep in a name (control characters are checked apart). */
const INVALID_NAME_CHARACTERS = /[/\\:*?"<>|]/u;
const isControl = (character: string) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f;
const MAX_NAME_BYTES = 255;

/** The uploaded file's name (decoded from the URL, bad UTF-8 as U+FFFD), checked: a 400 that says why, never a 500 from the file system. */
export function uploadName(raw: string | undefined): string {
  const name = (raw ?? "").normalize("NFC");
  const refuse = (why: string) => new ChunkpadError("INVALID_ARGUMENT", `name: ${JSON.stringify(name)} cannot be a file name here: ${why}. Rename the file and upload it again.`);
  if (name.trim() === "") throw refuse("it is empty");
  if (name.includes("\uFFFD")) throw refuse("it is not valid UTF-8 text");
  if (INVALID_NAME_CHARACTERS.test(name) || [...name].some(isControl)) throw refuse('it holds a control character or one of / \\ : * ? " < > |');
  if (name !== path.basename(name) || name === "." || name === "..") throw refuse("it must be a plain name, not a path");
  if (name.startsWith(".")) throw refuse("hidden files (a name starting with .) are never read");
  if (name === "_chunks") throw refuse("_chunks is where Chunkpad keeps its chunk files");
  if (name !== name.trim() || name.endsWith(".")) throw refuse("it starts or ends with a space, or ends with a dot");
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) throw refuse(`it is longer than ${MAX_NAME_BYTES} bytes`);
  return name;
}

const WILDCARDS = new Set(["0.0.0.0", "::", "[::]"]);

/**
 * The names a request may give in Host (with the port): loopback always; with --allow-remote, the
 * bound address, and for a wildcard bind (0.0.0.0, ::) every address of this machine and its host
 * name, which is how other machines reach it. Anything else is a foreign name (DNS rebinding).
 */
export function serverHostNames(host: string, remote: boolean): string[] {
  const names = ["127.0.0.1", "localhost", "[::1]"];
  if (!remote) return names;
  const bracket = (address: string) => (address.includes(":") ? `[${address.replace(/^\[|\]$/g, "")}]` : address);
  names.push(bracket(host.toLowerCase()));
  if (WILDCARDS.has(host)) {
    for (const addresses of Object.values(os.networkInterfaces())) {
      for (const address of addresses ?? []) {
        // Link-local IPv6 needs a zone (fe80::1%eth0), which a Host header cannot carry.
        if (address.family === "IPv6" && address.address.toLowerCase().startsWith("fe80:")) continue;
        names.push(bracket(address.address.toLowerCase()));
      }
    }
    names.push(os.hostname().toLowerCase());
  }
  return [...new Set(names)];
}
