/**
 * Runs in a clone's `prepare` (after `npm install` / `npm ci`; never for a user of the packed
 * package, whose install runs no script of ours). Some dependencies ship files for every
 * platform, or for browsers, in one npm package; Node on this machine never loads them. This
 * deletes exactly those, each for a reason checked in the package's own loader (decision 053):
 * - onnxruntime-node: native runtimes of all platforms under bin/napi-v6/{os}/{arch} (288 MB;
 *   Linux x64 alone is 45 MB). Its binding loads only bin/napi-v6/{process.platform}/{process.arch}.
 * - usearch: prebuilds/{os}-{arch}; node-gyp-build picks this platform's folder.
 * - tesseract.js-core: the *.wasm.js single-file builds (25 MB) are for browsers; in Node,
 *   tesseract.js's worker (src/worker-script/node/getCore.js) requires tesseract-core-*.js,
 *   which reads the matching .wasm.
 * - node-llama-cpp (a development dependency: the local Llama's tests): the builds for GPUs and
 *   other CPUs beside this platform's CPU build, the only one Chunkpad loads.
 * - @photostructure/sqlite (decision 071): prebuilds/{os}-{arch} of the other platforms (node-gyp-build
 *   picks this platform's folder, glibc or musl: both kept), and src/, the C++ and SQLite sources
 *   (10 MB) that its install step compiles only where no prebuilt binary fits.
 * Prints what it freed; does nothing for a package that is not installed or already pruned.
 */
import console from "node:console";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import process from "node:process";

const require = createRequire(import.meta.url);

/** The installed package's folder, as Node would find it from here (some export no package.json). */
function packageFolder(name) {
  for (const modules of require.resolve.paths(name) ?? []) {
    if (fs.existsSync(path.join(modules, name, "package.json"))) return path.join(modules, name);
  }
  return null;
}

function bytesIn(target) {
  const stat = fs.lstatSync(target);
  if (!stat.isDirectory()) return stat.size;
  let bytes = 0;
  for (const entry of fs.readdirSync(target, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return bytes;
}

/** The folders under prebuilds/ that are not this platform's (none while no folder is: then nothing is pruned). */
function otherPrebuilds(folder, isHere) {
  const prebuilds = path.join(folder, "prebuilds");
  if (!fs.existsSync(prebuilds)) return [];
  const names = fs.readdirSync(prebuilds);
  if (!names.some(isHere)) return [];
  return names.filter((name) => !isHere(name)).map((name) => path.join(prebuilds, name));
}

/** Paths (inside the package) that Node on this machine never loads. */
const UNUSED_HERE = {
  "onnxruntime-node": (folder) => {
    const binaries = path.join(folder, "bin", "napi-v6");
    if (!fs.existsSync(path.join(binaries, process.platform, process.arch))) return [];
    return fs.readdirSync(binaries).flatMap((platform) =>
      fs
        .readdirSync(path.join(binaries, platform))
        .filter((arch) => !(platform === process.platform && arch === process.arch))
        .map((arch) => path.join(binaries, platform, arch)),
    );
  },
  usearch: (folder) => otherPrebuilds(folder, (name) => name.startsWith(`${process.platform}-`) && name.split(/[-+]/).includes(process.arch)),
  "tesseract.js-core": (folder) => fs.readdirSync(folder).filter((name) => name.endsWith(".wasm.js")).map((name) => path.join(folder, name)),
  // Its builds are packages of their own beside it (@node-llama-cpp/<platform>-<arch>[-gpu]), all
  // installed on Linux x64 (their cpu fields list x64 too): 650 MB of CUDA, Vulkan and ARM builds.
  // Chunkpad asks for the CPU build only (getLlama({ gpu: false, build: "never" }) in
  // llm/llama-cpp-engine.ts), which is @node-llama-cpp/<platform>-<arch>. package.json's
  // overrides point Linux x64's CUDA and Vulkan builds (320 MB of tarballs) at the RISC-V build,
  // which npm skips on any other CPU, so npm no longer unpacks them only for this to delete them
  // (decision 099); what is left here is the ARM builds and other platforms' GPU builds.
  "node-llama-cpp": (folder) => {
    const builds = path.join(folder, "..", "@node-llama-cpp");
    const here = `${process.platform}-${process.arch}`;
    if (!fs.existsSync(path.join(builds, here))) return [];
    return fs.readdirSync(builds).filter((name) => name !== here).map((name) => path.join(builds, name));
  },
  "@photostructure/sqlite": (folder) => {
    const here = `${process.platform}-${process.arch}`;
    if (!fs.existsSync(path.join(folder, "prebuilds", here))) return [];
    return [...otherPrebuilds(folder, (name) => name === here), path.join(folder, "src")].filter((target) => fs.existsSync(target));
  },
};

for (const [name, unused] of Object.entries(UNUSED_HERE)) {
  const folder = packageFolder(name);
  if (folder === null) continue;
  let freed = 0;
  for (const target of unused(folder)) {
    freed += bytesIn(target);
    fs.rmSync(target, { recursive: true, force: true });
  }
  if (name === "onnxruntime-node") {
    const binaries = path.join(folder, "bin", "napi-v6");
    for (const platform of fs.existsSync(binaries) ? fs.readdirSync(binaries) : []) {
      if (fs.readdirSync(path.join(binaries, platform)).length === 0) fs.rmdirSync(path.join(binaries, platform));
    }
  }
  if (freed > 0) console.log(`${name}: ${(freed / 1024 / 1024).toFixed(0)} MB that Node on ${process.platform}/${process.arch} never loads removed`);
}
