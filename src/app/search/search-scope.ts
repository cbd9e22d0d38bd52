import type { ChunkRef, DocumentRecord } from "../../core/types.js";
import type { MainStore } from "../../store/index.js";
import type { SearchScope, StoredFolder } from "../../store/index.js";
import { findAddedFolder, folderNotAdded } from "../folder-lookup.js";
import { notice, type Notice } from "../../core/next-step.js";

/**
 * Turns what the user typed for --folder, --document and --pin into ids and refs. A folder is
 * given by the path it was added with (or its id); a document by id, path inside its folder,
 * file name, or part of its path or title (the store's findDocuments).
 */

/** The added folders these arguments name; FOLDER_NOT_INDEXED for one that was never added. */
export async function resolveFolders(store: MainStore, specs: readonly string[], cwd = process.cwd()): Promise<StoredFolder[]> {
  const folders: StoredFolder[] = [];
  for (const spec of specs) {
    const folder = await findAddedFolder(store, spec, { cwd });
    if (!folder) throw folderNotAdded(spec);
    if (!folders.some((known) => known.id === folder.id)) folders.push(folder);
  }
  return folders;
}

export interface ScopeRequest {
  folders?: readonly string[];
  documents?: readonly string[];
  cwd?: string;
}

export interface ResolvedScope extends SearchScope {
  /** Documents the --document arguments matched, for messages and --explain. */
  documents: DocumentRecord[];
}

/**
 * The search scope for the filters. A --document that matches nothing is reported through
 * `notices` and matches no chunk (the user narrowed the search to something that is not there).
 */
export async function resolveScope(store: MainStore, request: ScopeRequest, notices: Notice[]): Promise<ResolvedScope> {
  const folders = request.folders && request.folders.length > 0 ? await resolveFolders(store, request.folders, request.cwd) : undefined;
  const scope: ResolvedScope = { documents: [] };
  if (folders) scope.folderIds = folders.map((folder) => folder.id);
  if (request.documents && request.documents.length > 0) {
    for (const query of request.documents) {
      const found = await findInFolders(store, query, scope.folderIds);
      if (found.length === 0) notices.push(noDocument("the document filter", query));
      for (const document of found) if (!scope.documents.some((known) => known.id === document.id)) scope.documents.push(document);
    }
    scope.documentIds = scope.documents.map((document) => document.id);
  }
  return scope;
}

/** Included chunks of the pinned documents, in document then chunk order. */
export async function resolvePinnedRefs(store: MainStore, pins: readonly string[], folderIds: readonly string[] | undefined, notices: Notice[]): Promise<ChunkRef[]> {
  const refs: ChunkRef[] = [];
  for (const query of pins) {
    const found = await findInFolders(store, query, folderIds);
    if (found.length === 0) notices.push(noDocument("the pin", query));
    for (const document of found) {
      for (const chunk of await store.listChunks({ documentId: document.id })) if (chunk.included) refs.push(chunk.ref);
    }
  }
  return refs;
}

async function findInFolders(store: MainStore, query: string, folderIds: readonly string[] | undefined): Promise<DocumentRecord[]> {
  if (folderIds === undefined) return await store.findDocuments(query);
  return (await Promise.all(folderIds.map((folderId) => store.findDocuments(query, { folderId })))).flat();
}

function noDocument(what: string, query: string): Notice {
  return notice(`No document matches ${what} "${query}". Give its file name, its path inside the folder, or part of its title.`, { action: "list-documents" });
}
