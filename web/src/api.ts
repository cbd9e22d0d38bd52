/** The HTTP API of `chunkpad serve`, as the app uses it. Same-origin requests: the browser sends the session cookie (the page never sees a token). */

export interface ApiError {
  code: string;
  message: string;
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data = (await response.json().catch(() => ({}))) as T & Partial<ApiError>;
  if (!response.ok) throw Object.assign(new Error(data.message ?? `HTTP ${response.status}`), { code: data.code ?? "ERROR" });
  return data;
}

export const get = <T>(path: string) => request<T>("GET", path);
export const post = <T>(path: string, body: unknown) => request<T>("POST", path, body);
export const remove = <T>(path: string) => request<T>("DELETE", path);
export const put = <T>(path: string, body: unknown) => request<T>("PUT", path, body);

/** Sends one file's bytes into an added folder; the server never overwrites a file. */
export async function uploadFile(folderId: string, file: File): Promise<void> {
  const response = await fetch(`/api/folders/${encodeURIComponent(folderId)}/files?name=${encodeURIComponent(file.name)}`, {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body: file,
  });
  if (!response.ok) {
    const data = (await response.json().catch(() => ({}))) as Partial<ApiError>;
    throw Object.assign(new Error(data.message ?? `HTTP ${response.status}`), { code: data.code ?? "ERROR" });
  }
}

export interface Folder {
  id: string;
  rootPath: string;
  documentCount: number;
  storedChunkCount: number;
  includedChunkCount: number;
  embeddedChunkCount: number;
  modifiedChunkCount: number;
  failedCount: number;
}

export interface ChunkState {
  ref: string;
  ordinal: number;
  included: boolean;
  embedState: string;
  location: string | null;
  section: string | null;
  preview: string;
}

export interface SearchResult {
  ref: string;
  relativePath: string;
  documentTitle: string;
  location: string | null;
  snippet: string;
  score: number;
  relevancePercent: number;
  distance?: number;
  /** Keyword relevance (bm25): higher is better. */
  keywordScore?: number;
  vectorRank?: number;
  keywordRank?: number;
  moreInDocument?: Array<{ ref: string }>;
  fusedScore?: number;
  rerankScore?: number;
  rerankRank?: number;
}

export interface SearchReport {
  mode: string;
  /** rrf or weighted, in hybrid mode. */
  fusion: string | null;
  /** The keyword expression that ran (words as searched, * for a prefix). */
  keywordQuery: string | null;
  rerank: { model: string; scored: number; candidates: number; durationMs: number } | null;
  notices: string[];
  results: SearchResult[];
}

export interface ChunkView {
  chunk: { ref: string; documentId: string; relativePath: string; documentTitle: string; location: string | null; page: number | null; section: string | null; text: string; contentHash: string };
}

export interface Provider {
  provider: string;
  model: string;
  selected: boolean;
  ready: boolean;
  detail: string;
  /** Models installed in Ollama, when it answered. */
  installedModels?: string[];
  /** The local model's approximate download size, while it is not downloaded. */
  downloadBytes?: number;
}

export interface KeyDescription {
  provider: string;
  source: string | null;
  location: string;
}

export interface ConversationSummary {
  id: string;
  title: string;
  updatedAt: string;
  messageCount: number;
}

export interface Conversation {
  id: string;
  title: string;
  messages: Array<{ role: string; content: string }>;
}

export interface Job {
  id: string;
  kind: string;
  state: string;
  events: string;
}

export interface JobEvent {
  type: string;
  data: Record<string, unknown>;
}

/** Follows a job's server-sent events until it ends; the server replays what the page missed. */
export function followJob(job: Job, onEvent: (event: JobEvent) => void): () => void {
  const source = new EventSource(job.events);
  const types = ["process-progress", "embed-progress", "chunks", "answer-start", "text-delta", "citation", "refused", "final", "error", "notice", "waiting", "sync-folder", "download-progress"];
  for (const type of types) source.addEventListener(type, (message) => onEvent({ type, data: JSON.parse((message as MessageEvent<string>).data) as Record<string, unknown> }));
  for (const type of ["job-done", "job-failed", "job-cancelled"]) {
    source.addEventListener(type, (message) => {
      source.close();
      onEvent({ type, data: JSON.parse((message as MessageEvent<string>).data) as Record<string, unknown> });
    });
  }
  return () => source.close();
}

export interface ChunkTreeFile {
  type: "file";
  name: string;
  path: string;
  chunkFile: string;
  chunkCount: number;
  includedCount: number;
  embeddedCount: number;
  modifiedCount: number;
  newCount: number;
  failed?: { code: string; message: string };
  conflict?: true;
}

export interface ChunkTreeFolder {
  type: "folder";
  name: string;
  path: string;
  fileCount: number;
  chunkCount: number;
  children: Array<ChunkTreeFile | ChunkTreeFolder>;
}

export interface ChunkTreeReport {
  folderId: string;
  chunksRootPath: string;
  fileCount: number;
  chunkCount: number;
  tree: ChunkTreeFolder;
}
