import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts a worker thread from a module next to the caller. Built code runs the .js file; under
 * the TypeScript test runner the caller is a .ts file and so is the worker, which Node 20
 * cannot load in a worker by itself: a tiny bootstrap registers tsx first, then imports it.
 */
export function spawnModuleWorker(callerUrl: string, baseName: string, options: WorkerOptions = {}): Worker {
  if (!callerUrl.endsWith(".ts")) return new Worker(new URL(`./${baseName}.js`, callerUrl), options);
  const target = new URL(`./${baseName}.ts`, callerUrl).href;
  const bootstrap = `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(target)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
