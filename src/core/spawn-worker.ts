import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

export interface ModuleWorkerOptions extends WorkerOptions {
  /**
   * Receives what the worker's libraries print on stdout (pdf.js, transformers.js, onnxruntime
   * logs). Stdout belongs to the face (a `--json` document, the MCP server's protocol), so it is
   * never passed through; by default it goes to stderr. Ignored when the caller sets
   * `stdout: true` and reads `worker.stdout` itself.
   */
  onOutput?: (text: string) => void;
}

/**
 * Starts a worker thread from a module next to the caller (`baseName` may hold a relative
 * path). Built code runs the .js file. Under the TypeScript test runner the caller is a .ts
 * file and so is the worker; Node 20 applies no `--import tsx` hooks to a worker's entry, so a
 * tiny bootstrap loads it through tsx's own importer instead.
 */
export function spawnModuleWorker(callerUrl: string, baseName: string, options: ModuleWorkerOptions = {}): Worker {
  const { onOutput, ...workerOptions } = options;
  const callerReadsStdout = workerOptions.stdout === true && onOutput === undefined;
  const worker = startWorker(callerUrl, baseName, { ...workerOptions, stdout: true });
  if (!callerReadsStdout) {
    const forward = onOutput ?? ((text: string) => process.stderr.write(text));
    worker.stdout.on("data", (data: Buffer) => forward(data.toString()));
  }
  return worker;
}

function startWorker(callerUrl: string, baseName: string, options: WorkerOptions): Worker {
  if (!callerUrl.endsWith(".ts")) return new Worker(new URL(`./${baseName}.js`, callerUrl), options);
  const tsxApi = pathToFileURL(tsxEsmApiPath(callerUrl)).href;
  const entry = new URL(`./${baseName}.ts`, callerUrl).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then(({ tsImport }) => tsImport(${JSON.stringify(entry)}, ${JSON.stringify(callerUrl)}));`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/** tsx's ESM API entry (a dev dependency, present whenever the caller runs as TypeScript). */
function tsxEsmApiPath(callerUrl: string): string {
  const manifestPath = createRequire(callerUrl).resolve("tsx/package.json");
  const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as { exports: Record<string, { import?: { default?: string } }> };
  const entry = manifest.exports["./esm/api"]?.import?.default ?? "./dist/esm/api/index.mjs";
  return path.join(path.dirname(manifestPath), entry);
}
