import { InvalidArgumentError, Option, type Command } from "commander";
import { FUSION_METHODS, SEARCH_MODES, type FusionMethod, type SearchMode, type SearchOptions } from "../../index.js";
import { parseIntegerOption } from "./io.js";

/** The search flags `search`, `ask` and `chat` share, as commander parses them. */
export interface SearchFlags {
  mode?: SearchMode;
  fusion?: FusionMethod;
  minScore?: number;
  maxDistance?: number;
  limit?: number;
  folder: string[];
  document: string[];
  pin: string[];
  rerank?: boolean;
  rerankBudget?: number;
}

/** The help line of each search flag; a command words them for its own job. */
export type SearchFlagHelp = Record<"mode" | "fusion" | "minScore" | "maxDistance" | "limit" | "folder" | "document" | "pin", string>;

/** The wording of `chunkpad search`. */
export const SEARCH_FLAG_HELP: SearchFlagHelp = {
  mode: "keyword, vector or hybrid (default: hybrid when chunks are embedded, else keyword)",
  fusion: "how hybrid search combines the two rankings (default from the config: weighted)",
  minScore: "drop results scoring below this, 0..1 (default from the config: 0.1)",
  maxDistance: "drop vector hits farther than this cosine distance, 0..2",
  limit: "how many results (default from the config: 10)",
  folder: "search only this added folder (repeatable)",
  document: "search only this document: file name, path in its folder, or id (repeatable)",
  pin: "put this document's chunks first, at 100% (repeatable)",
};

export function addSearchOptions(command: Command, help: SearchFlagHelp = SEARCH_FLAG_HELP): Command {
  return command
    .addOption(new Option("--mode <mode>", help.mode).choices(SEARCH_MODES))
    .addOption(new Option("--fusion <method>", help.fusion).choices(FUSION_METHODS))
    .option("--min-score <fraction>", help.minScore, parseFraction("--min-score", 1))
    .option("--max-distance <distance>", help.maxDistance, parseFraction("--max-distance", 2))
    .option("--limit <n>", help.limit, parseIntegerOption("--limit"))
    .option("--folder <folder>", help.folder, collect, [])
    .option("--document <document>", help.document, collect, [])
    .option("--pin <document>", help.pin, collect, [])
    .option("--rerank", "re-score the top results with a cross-encoder (default from the config: search.rerank)")
    .option("--no-rerank", "do not rerank, whatever the config says")
    .option("--rerank-budget <ms>", "time the cross-encoder may take (default from the config: 2000)", parseIntegerOption("--rerank-budget"));
}

/** The flags as search options; a flag not given leaves the config's default. */
export function searchOptionsOf(flags: SearchFlags): SearchOptions {
  return {
    ...(flags.mode ? { mode: flags.mode } : {}),
    ...(flags.fusion ? { fusion: flags.fusion } : {}),
    ...(flags.minScore === undefined ? {} : { minScore: flags.minScore }),
    ...(flags.maxDistance === undefined ? {} : { maxDistance: flags.maxDistance }),
    ...(flags.limit === undefined ? {} : { limit: flags.limit }),
    folders: flags.folder,
    documents: flags.document,
    pins: flags.pin,
    ...(flags.rerank === undefined ? {} : { rerank: flags.rerank }),
    ...(flags.rerankBudget === undefined ? {} : { rerankBudgetMs: flags.rerankBudget }),
  };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parseFraction(name: string, maximum: number) {
  return (value: string): number => {
    const number = Number(value);
    if (value.trim() === "" || !Number.isFinite(number) || number < 0 || number > maximum) {
      throw new InvalidArgumentError(`${name} takes a number from 0 to ${maximum}, not "${value}"`);
    }
    return number;
  };
}
