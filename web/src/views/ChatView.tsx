import { MessagesSquare } from "lucide-react";
import { useEffect, useRef } from "react";
import { EmptyState } from "../components/EmptyState.js";
import { Toolbar } from "../components/Toolbar.js";
import { Button } from "../components/Button.js";
import { useConversations, useProviders } from "../hooks/queries.js";
import type { useChat } from "../hooks/useChat.js";
import type { InspectorTarget } from "./ChunkInspector.js";
import { ChatTurn } from "./ChatTurn.js";
import { Composer } from "./Composer.js";

/** Chat: the conversation in a scrolling column, the composer fixed below it. */
export function ChatView({ chat, hasFolders, onOpen, onSettings }: { chat: ReturnType<typeof useChat>; hasFolders: boolean; onOpen: (target: InspectorTarget) => void; onSettings: () => void }) {
  const providers = useProviders();
  const conversations = useConversations();
  const log = useRef<HTMLDivElement>(null);
  const last = chat.turns.at(-1);
  // Follow the answer as it streams, unless the user scrolled up to read.
  useEffect(() => {
    const element = log.current;
    if (!element) return;
    if (element.scrollHeight - element.scrollTop - element.clientHeight < 160) element.scrollTop = element.scrollHeight;
  }, [last?.answer, last?.sources.length, chat.turns.length]);
  const title = conversations.data?.find((conversation) => conversation.id === chat.conversationId)?.title ?? "New conversation";
  const noneReady = providers.data !== undefined && !providers.data.providers.some((entry) => entry.ready);
  return (
    <div className="view chat">
      <Toolbar title={title} subtitle={chat.conversationId ? "Answers cite the chunks they use; a citation opens its chunk." : "Ask about your documents"} />
      <div className="chat-log" ref={log} role="log" aria-label="Messages" tabIndex={0}>
        {chat.loadError && <p role="alert" className="notice notice-bad">{chat.loadError}</p>}
        {!hasFolders && <EmptyState icon={MessagesSquare} title="No documents to ask about">Add a folder under Documents, then ask about it here.</EmptyState>}
        {hasFolders && chat.turns.length === 0 && (
          <EmptyState icon={MessagesSquare} title="Ask a question about your documents">
            Answers cite the chunks they use; click a citation to read it in the inspector. Switch sources off and regenerate to answer from fewer.
          </EmptyState>
        )}
        {noneReady && (
          <div className="notice notice-warn" role="note">
            <p>No answer provider is ready yet: add an Anthropic or OpenAI key, set the address of Ollama or an OpenAI-compatible server, or download the local model. Until then, Search finds the chunks.</p>
            <Button size="sm" onClick={onSettings}>
              Open Settings → Answers
            </Button>
          </div>
        )}
        {chat.turns.map((turn, index) => (
          <ChatTurn key={index} turn={turn} index={index} last={index === chat.turns.length - 1} chat={chat} onOpen={onOpen} />
        ))}
      </div>
      <Composer chat={chat} providers={providers.data?.providers ?? []} disabled={!hasFolders} />
    </div>
  );
}
