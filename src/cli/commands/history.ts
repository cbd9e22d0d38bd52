import type { Command } from "commander";
import type { ConversationSummary, ConversationView, MessageView } from "../../index.js";
import type { CliContext } from "../main.js";
import { printJson } from "../io.js";

/** `chunkpad history`: stored conversations, one with its messages, or delete one. */

/** Enough of a UUID to tell conversations apart; `history <id>` takes any unique start. */
const SHORT_ID_CHARS = 8;

export function registerHistoryCommand(program: Command, context: CliContext): void {
  const history = program
    .command("history")
    .description("List past conversations, or show one with its messages and citations")
    .argument("[conversation]", "a conversation id (or its first characters) to show")
    .option("--json", "print machine-readable output on stdout")
    .action((id: string | undefined, flags: { json?: boolean }) => {
      const chunkpad = context.chunkpad();
      if (id !== undefined) {
        const conversation = chunkpad.getConversation(id);
        if (flags.json) return printJson(context.io, conversation);
        context.io.stdout.write(formatConversation(conversation));
        return;
      }
      const conversations = chunkpad.listConversations();
      if (flags.json) return printJson(context.io, conversations);
      context.io.stdout.write(formatConversationList(conversations));
    });

  history
    .command("delete")
    .description("Delete a conversation and its messages")
    .argument("<conversation>", "the conversation id (or its first characters)")
    .action((id: string) => {
      const deleted = context.chunkpad().deleteConversation(id);
      context.io.stdout.write(`Deleted conversation ${deleted.slice(0, SHORT_ID_CHARS)}.\n`);
    });
}

export function formatConversationList(conversations: readonly ConversationSummary[]): string {
  if (conversations.length === 0) return 'No conversations yet. Ask something with chunkpad ask "<question>" or chunkpad chat.\n';
  const lines = conversations.map((conversation) => {
    const messages = `${conversation.messageCount} message${conversation.messageCount === 1 ? "" : "s"}`;
    return `${conversation.id.slice(0, SHORT_ID_CHARS)}  ${formatTime(conversation.updatedAt)}  ${messages.padEnd(11)}  ${conversation.title}`;
  });
  return `${lines.join("\n")}\n`;
}

export function formatConversation(conversation: ConversationView): string {
  const lines = [`Conversation ${conversation.id.slice(0, SHORT_ID_CHARS)}: ${conversation.title}`, `started ${formatTime(conversation.createdAt)}, last ${formatTime(conversation.updatedAt)}`, ""];
  for (const message of conversation.messages) lines.push(...formatMessage(message), "");
  return `${lines.join("\n")}`;
}

function formatMessage(message: MessageView): string[] {
  if (message.role !== "assistant") return [`You (${formatTime(message.createdAt)}):`, indent(message.content)];
  const by = message.provider ? ` · ${message.provider}${message.model ? ` ${message.model}` : ""}` : "";
  const lines = [`Answer (${formatTime(message.createdAt)}${by})${message.incomplete ? " [incomplete]" : ""}:`, indent(message.content || "(no text)")];
  for (const citation of message.citations) {
    const where = [citation.source, citation.location].filter(Boolean).join(" ");
    const state = citation.missing ? " (no longer in the index)" : citation.changed ? " (changed since cited; the text below is what was cited)" : "";
    lines.push(`  [${citation.label}] ${where} · ${citation.ref}${state}`);
    if (citation.text !== null) lines.push(`      "${preview(citation.text)}"`);
  }
  for (const label of message.invalidCitations) lines.push(`  [${label}?] invented: not one of the chunks the answer was given`);
  return lines;
}

/** Characters of cited text shown per citation; `history --json` has all of it. */
const CITED_PREVIEW_CHARS = 160;

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > CITED_PREVIEW_CHARS ? `${flat.slice(0, CITED_PREVIEW_CHARS - 1)}…` : flat;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}

/** "2026-03-01 14:05", in local time. */
function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
