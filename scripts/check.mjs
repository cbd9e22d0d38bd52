/**
 * Type-checks one TypeScript project and lints with that same program:
 * `node scripts/check.mjs tsconfig.json src test bench scripts`.
 * `tsc` and type-aware `eslint` (no-floating-promises, await-thenable) each built and checked the
 * whole program, so `npm test` paid for three type checks of the backend (decision 073). Here the
 * rules ask the checker that `tsc`'s diagnostics already filled: the same compiler options, the same
 * ESLint config and rules (eslint.config.js), the same findings, printed as `tsc` and
 * `eslint --max-warnings 0` print them. `npm run typecheck:node`, `typecheck:web` and `lint` still
 * run each alone.
 */
import console from "node:console";
import path from "node:path";
import process from "node:process";
import { ESLint } from "eslint";
import ts from "typescript";

const [tsconfig, ...lintPaths] = process.argv.slice(2);
if (!tsconfig || lintPaths.length === 0) {
  console.error("usage: node scripts/check.mjs <tsconfig.json> <path to lint> [<path>...]");
  process.exit(2);
}

const config = ts.getParsedCommandLineOfConfigFile(path.resolve(tsconfig), { noEmit: true }, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => report([diagnostic]) });
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences, configFileParsingDiagnostics: config.errors });
// What `tsc --noEmit` reports (options, syntax, types, and with `declaration` on, declaration
// diagnostics), for the project's own files: those its tsconfig includes. A file another project
// includes and this one only imports is that project's to check: the web app imports the backend's
// types, and checking the backend's 300 files again, under the web's compiler options, took a third
// of `check:web` (decision 082). Every file of the repository's two projects is still checked once.
const own = new Set(config.fileNames.map((file) => path.resolve(file)));
const found = [...program.getConfigFileParsingDiagnostics(), ...program.getOptionsDiagnostics()];
for (const sourceFile of program.getSourceFiles()) {
  if (!own.has(path.resolve(sourceFile.fileName))) continue;
  found.push(...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile));
  if (config.options.declaration || config.options.composite) found.push(...program.getDeclarationDiagnostics(sourceFile));
}
const diagnostics = ts.sortAndDeduplicateDiagnostics([...found, ...program.getGlobalDiagnostics()]);
let failed = report(diagnostics);

// Where the config asks for type information (projectService), the rules get this program instead.
const eslint = new ESLint({ overrideConfig: [{ files: ["**/*.ts", "**/*.tsx"], languageOptions: { parserOptions: { projectService: false, programs: [program] } } }] });
const results = await eslint.lintFiles(lintPaths);
const problems = results.reduce((count, result) => count + result.errorCount + result.warningCount, 0);
const text = await (await eslint.loadFormatter("stylish")).format(results);
if (text) console.log(text);
if (problems > 0) failed = true;
process.exitCode = failed ? 1 : 0;

/** Prints diagnostics as `tsc` does when its output is not a terminal; true when there were any. */
function report(list) {
  if (list.length === 0) return false;
  const host = { getCurrentDirectory: () => process.cwd(), getCanonicalFileName: (name) => name, getNewLine: () => "\n" };
  console.log(ts.formatDiagnostics(list, host));
  console.log(`Found ${list.length} error${list.length === 1 ? "" : "s"}.`);
  return true;
}
