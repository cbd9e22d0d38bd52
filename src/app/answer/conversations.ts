import { ChunkpadError } from "../../core/errors.js";
import type { ChunkRecord, ChunkRef } from "../../core/types.js";
import { parseCitations } from "../../rag/citations.js";
import type { CitationLabel } from "../../rag/context.js";
import type { ChatStore, Conversation, ConversationSummary, StoredMessage } from "../../store/index.js";
import { parseChunkRef } from "../../core/chunk-ref.js";
import { locationOf } from "../search/search.js";

/**
 * Stored conversations, as `chunkpad history` and the web app show them: each answer's
 * citations resolved to file, page and chunk reference. An answer's chunk refs are stored in
 * label order, so [C2] is the second ref; a chunk deleted since is still named by its ref.
 * Each citation keeps the text it was given (and its hash), so an old answer shows what it
 * cited even after the document changed, marked as changed.
 */

export interface StoredCitation {
  /** "C1". */
  label: string;
  ref: ChunkRef;
  /** Source file, relative to its folder. */
  source: string;
  /** "p. 3", "slide 2", or null. */
  location: string | null;
  /** The chunk is no longer in the index (its document was removed or re-chunked). */
  missing: boolean;
  /** The text the answer was given, as it was then; null for answers stored before citations kept their text. */
  text: string | null;
  /** The chunk at this ref now holds other text, or is gone: `text` is what was cited, not what the document says now. */
  changed: boolean;
}

/** A question's source as it was shown: numbered as found, with its relevance and the user's toggle. */
export interface ShownSource {
  number: number;
  ref: ChunkRef;
  relativePath: string;
  location: string | null;
  included: boolean;
  relevancePercent: number;
}

export interface MessageView extends StoredMessage {
  /** A question's sources as shown (null when the question was stored without them). */
  shownSources: ShownSource[] | null;
  /** Valid citations the message makes, in order of first use (assistant messages). */
  citations: StoredCitation[];
  /** Citations to labels the answer was never given. */
  invalidCitations: string[];
}

export interface ConversationView extends Conversation {
  messages: MessageView[];
}

/** Looks chunks up by ref in the main database (missing ones are simply not returned). */
export type ChunkLookup = (refs: readonly ChunkRef[]) => Promise<ChunkRecord[]>;

export function listConversations(chats: ChatStore): Promise<ConversationSummary[]> {
  return chats.listConversations();
}

/** A conversation by id or by a unique start of its id (as `chunkpad history` shows it). */
export async function findConversationId(chats: ChatStore, idOrPrefix: string): Promise<string> {
  const wanted = idOrPrefix.trim().toLowerCase();
  if (wanted === "") throw new ChunkpadError("INVALID_ARGUMENT", 'Give a conversation id; "chunkpad history" lists them.');
  const ids = (await chats.listConversations()).map((conversation) => conversation.id);
  if (ids.includes(wanted)) return wanted;
  const matches = ids.filter((id) => id.toLowerCase().startsWith(wanted));
  if (matches.length === 1 && matches[0] !== undefined) return matches[0];
  if (matches.length > 1) {
    throw new ChunkpadError("INVALID_ARGUMENT", `"${idOrPrefix}" starts ${matches.length} conversation ids. Give more of the id ("chunkpad history" lists them).`);
  }
  throw new ChunkpadError("NOT_FOUND", `There is no conversation "${idOrPrefix}". Run "chunkpad history" to list them.`);
}

export async function getConversation(chats: ChatStore, lookUp: ChunkLookup, idOrPrefix: string): Promise<ConversationView> {
  const id = await findConversationId(chats, idOrPrefix);
  const conversation = await chats.getConversation(id);
  if (!conversation) throw new ChunkpadError("NOT_FOUND", `There is no conversation "${idOrPrefix}". Run "chunkpad history" to list them.`);
  const refs = [...new Set(conversation.messages.flatMap((message) => message.chunkRefs))];
  const chunks = new Map((await lookUp(refs)).map((chunk) => [chunk.ref, chunk]));
  return { ...conversation, messages: conversation.messages.map((message) => viewOf(message, chunks)) };
}

export async function deleteConversation(chats: ChatStore, idOrPrefix: string): Promise<string> {
  const id = await findConversationId(chats, idOrPrefix);
  await chats.deleteConversation(id);
  return id;
}

function viewOf(message: StoredMessage, chunks: ReadonlyMap<ChunkRef, ChunkRecord>): MessageView {
  if (message.role !== "assistant") {
    const shownSources = message.sources?.chunks.map((source, index) => {
      const chunk = chunks.get(source.ref);
      return { number: index + 1, ref: source.ref, relativePath: sourceOf(source.ref, chunk), location: chunk ? locationOf(chunk) : null, included: source.included, relevancePercent: Math.round(source.scores.score * 100) };
    });
    return { ...message, shownSources: shownSources ?? null, citations: [], invalidCitations: [] };
  }
  const labels: CitationLabel[] = message.chunkRefs.map((ref, index) => ({ label: `C${index + 1}`, ref, source: sourceOf(ref, chunks.get(ref)) }));
  const parsed = parseCitations(message.content, labels);
  const citations = parsed.used.map((label) => {
    const chunk = chunks.get(label.ref);
    const cited = message.citedChunks[labels.indexOf(label)];
    const changed = cited === undefined ? chunk === undefined : chunk?.contentHash !== cited.contentHash;
    return { label: label.label, ref: label.ref, source: label.source, location: chunk ? locationOf(chunk) : null, missing: chunk === undefined, text: cited?.text ?? null, changed };
  });
  return { ...message, shownSources: null, citations, invalidCitations: parsed.invalid };
}

function sourceOf(ref: ChunkRef, chunk: ChunkRecord | undefined): string {
  return chunk?.relativePath ?? parseChunkRef(ref)?.relativePath ?? ref;
}
