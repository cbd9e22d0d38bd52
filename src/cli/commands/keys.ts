import type { Command } from "commander";
import { ChunkpadError, SECRET_PROVIDERS, type KeyDescription } from "../../index.js";
import type { CliContext } from "../context.js";
import { printJson, readStdin } from "../shared/io.js";
import { readHidden } from "../shared/prompt.js";

/**
 * `chunkpad keys`: API keys for the cloud providers. A key is read from stdin (piped) or typed
 * at a hidden prompt, never taken from the command line (it would stay in the shell history
 * and show in the process list), and never printed: only where it is kept.
 */

const SOURCE_WORDS: Record<NonNullable<KeyDescription["source"]>, string> = {
  keychain: "keychain",
  environment: "environment",
  file: "file",
};

export function registerKeysCommands(program: Command, context: CliContext): void {
  const keys = program.command("keys").description(`Set, list and delete API keys (${SECRET_PROVIDERS.join(", ")}); kept in the OS keychain, never in the config`);

  keys
    .command("set")
    .description("Store a provider's API key: pipe it in (echo $KEY | chunkpad keys set openai) or type it at the hidden prompt")
    .argument("<provider>", SECRET_PROVIDERS.join(" or "))
    .action(async (provider: string) => {
      const { io } = context;
      // Checked before the prompt, so nobody types a key only to hear the provider is misspelt.
      requireKnownProvider(provider);
      const key = io.stdin.isTTY ? await readHidden(io, `${provider} API key (input hidden): `) : await readStdin(io);
      if (key === null || key.trim() === "") {
        throw new ChunkpadError("INVALID_ARGUMENT", `No key was given. Pipe it in (for example: pbpaste | chunkpad keys set ${provider}) or type it when asked.`);
      }
      const stored = await context.chunkpad().setApiKey(provider, key);
      io.stdout.write(`Stored the ${stored.provider} key in the ${describeWhere(stored)}.\n`);
      if (stored.source === "file" && stored.keychainProblem) {
        io.stderr.write(`note: no OS keychain could be used (${stored.keychainProblem}); the key is in a file only you can read.\n`);
      }
    });

  keys
    .command("list")
    .description("Show which providers have a key and where it comes from (never the key)")
    .option("--json", "print machine-readable output on stdout")
    .action(async (flags: { json?: boolean }) => {
      const described = await context.chunkpad().listApiKeys();
      if (flags.json) {
        return printJson(
          context.io,
          described.map((entry) => ({ provider: entry.provider, source: entry.source, location: entry.location, ...(entry.overrides ? { overrides: entry.overrides } : {}) })),
        );
      }
      for (const entry of described) {
        const overrides = entry.overrides ? `; overrides the key stored in ${describeStore(entry.overrides)}` : "";
        const where = entry.source === null ? "no key" : `${SOURCE_WORDS[entry.source]} (${entry.location}${overrides})`;
        context.io.stdout.write(`${entry.provider.padEnd(10)} ${where}\n`);
      }
    });

  keys
    .command("delete")
    .description("Delete a provider's stored key (from the keychain and the key file)")
    .argument("<provider>", SECRET_PROVIDERS.join(" or "))
    .action(async (provider: string) => {
      requireKnownProvider(provider);
      const chunkpad = context.chunkpad();
      const before = (await chunkpad.listApiKeys()).find((entry) => entry.provider === provider.trim().toLowerCase());
      const remaining = await chunkpad.deleteApiKey(provider);
      context.io.stdout.write(before?.source === null ? `No ${remaining.provider} key was stored; nothing to delete.\n` : `Deleted the stored ${remaining.provider} key.\n`);
      if (remaining.source === "environment") {
        context.io.stderr.write(`note: a key is still set in the ${remaining.location}; unset it to stop using it.\n`);
      }
    });
}

function requireKnownProvider(provider: string): void {
  if (!(SECRET_PROVIDERS as readonly string[]).includes(provider.trim().toLowerCase())) {
    throw new ChunkpadError("INVALID_ARGUMENT", `Keys are kept for ${SECRET_PROVIDERS.join(" and ")}, not "${provider}". Ollama and the local model need no key.`);
  }
}

function describeStore(location: string): string {
  return location === "OS keychain" ? "the OS keychain" : location;
}

function describeWhere(description: KeyDescription): string {
  if (description.source === "keychain") return "OS keychain";
  if (description.source === "file") return `key file ${description.location} (readable only by you)`;
  return description.location;
}
