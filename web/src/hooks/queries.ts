import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { get } from "../api/client.js";
import type { ChunkState, ChunkTreeReport, ConflictDiff, Conversation, ConversationSummary, Folder, KeyDescription, Listing, Provider, SettingRow, Status } from "../api/types.js";

/** Server state: one query per resource, refetched when a change (a job, a review, an edit) invalidates it. */
export const keys = {
  folders: ["folders"] as const,
  status: ["status"] as const,
  tree: (folderId: string) => ["tree", folderId] as const,
  chunks: (folderId: string, document: string) => ["chunks", folderId, document] as const,
  providers: ["providers"] as const,
  settings: ["settings"] as const,
  conversations: ["conversations"] as const,
  conversation: (id: string) => ["conversation", id] as const,
  conflict: (folderId: string, file: string) => ["tree", folderId, "conflict", file] as const,
};

export const useFolders = () => useQuery({ queryKey: keys.folders, queryFn: async () => (await get<{ folders: Folder[] }>("/api/folders")).folders });
export const useStatus = () => useQuery({ queryKey: keys.status, queryFn: () => get<Status>("/api/status") });
export const useTree = (folderId: string | null) =>
  useQuery({ queryKey: keys.tree(folderId ?? ""), enabled: folderId !== null, queryFn: () => get<ChunkTreeReport>(`/api/folders/${encodeURIComponent(folderId ?? "")}/tree`) });
export const useChunks = (folderId: string, document: string) =>
  useQuery({ queryKey: keys.chunks(folderId, document), queryFn: async () => (await get<{ chunks: ChunkState[] }>(`/api/folders/${encodeURIComponent(folderId)}/chunks?document=${encodeURIComponent(document)}`)).chunks });
/** A conflict's two sides; under the tree's key, so a processing run or a resolve fetches it again. */
export const useConflictDiff = (folderId: string, file: string) =>
  useQuery({ queryKey: keys.conflict(folderId, file), queryFn: () => get<ConflictDiff>(`/api/folders/${encodeURIComponent(folderId)}/conflict?file=${encodeURIComponent(file)}`) });
export const useProviders = () => useQuery({ queryKey: keys.providers, queryFn: () => get<{ providers: Provider[]; keys: KeyDescription[] }>("/api/providers") });
export const useSettings = () => useQuery({ queryKey: keys.settings, queryFn: async () => (await get<{ settings: SettingRow[] }>("/api/settings")).settings });
export const useConversations = () => useQuery({ queryKey: keys.conversations, queryFn: async () => (await get<{ conversations: ConversationSummary[] }>("/api/conversations")).conversations });
export const fetchConversation = (id: string) => get<Conversation>(`/api/conversations/${encodeURIComponent(id)}`);
export const fetchListing = (path: string) => get<Listing>(`/api/browse?path=${encodeURIComponent(path)}`);

/** Everything about folders and their chunks is fetched again (after a job, a review, an edit). */
export function useRefreshDocuments() {
  const client = useQueryClient();
  return useCallback(async () => {
    await Promise.all([["folders"], ["status"], ["tree"], ["chunks"]].map((key) => client.invalidateQueries({ queryKey: key })));
  }, [client]);
}
