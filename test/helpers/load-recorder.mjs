// `node --import ./load-recorder.mjs …` appends every module URL the process resolves to the
// file named by CHUNKPAD_LOAD_LOG: tests check what a command loads, not how long it takes.
import { register } from "node:module";

register(
  "data:text/javascript," +
    encodeURIComponent(`
import fs from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (process.env.CHUNKPAD_LOAD_LOG && !result.url.startsWith("node:")) fs.appendFileSync(process.env.CHUNKPAD_LOAD_LOG, result.url + "\\n");
  return result;
}`),
);
