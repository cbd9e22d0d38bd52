import type { Command } from "commander";
import type { ConversationSummary } from "../../index.js";
import type { CliContext } from "../context.js";
import { plural, printJson } from "../shared/io.js";
import { formatConversation, formatTime, SHORT_ID_CHARS } from "../shared/render.js";

/** `chunkpad history`: stored conversations, one with its messages, or delete one. */

export function registerHistoryCommand(program: Command, context: CliContext): void {
  const history = program
    .command("history")
    .description("List past conversations, or show one with its messages and citations")
    .argument("[conversation]", "a conversation id (or its first characters) to show")
    .option("--json", "print machine-readable output on stdout")
    .action(async (id: string | undefined, flags: { json?: boolean }) => {
      const chunkpad = context.chunkpad();
      if (id !== undefined) {
        const conversation = await chunkpad.getConversation(id);
        if (flags.json) return printJson(context.io, conversation);
        context.io.stdout.write(formatConversation(conversation));
        return;
      }
      const conversations = await chunkpad.listConversations();
      if (flags.json) return printJson(context.io, conversations);
      context.io.stdout.write(formatConversationList(conversations));
    });

  history
    .command("delete")
    .description("Delete a conversation and its messages")
    .argument("<conversation>", "the conversation id (or its first characters)")
    .action(async (id: string) => {
      const deleted = await context.chunkpad().deleteConversation(id);
      context.io.stdout.write(`Deleted conversation ${deleted.slice(0, SHORT_ID_CHARS)}.\n`);
    });
}

export function formatConversationList(conversations: readonly ConversationSummary[]): string {
  if (conversations.length === 0) return 'No conversations yet. Ask something with chunkpad ask "<question>" or chunkpad chat.\n';
  const lines = conversations.map((conversation) => {
    const messages = plural(conversation.messageCount, "message");
    return `${conversation.id.slice(0, SHORT_ID_CHARS)}  ${formatTime(conversation.updatedAt)}  ${messages.padEnd(11)}  ${conversation.title}`;
  });
  return `${lines.join("\n")}\n`;
}
