import { Fragment, lazy, Suspense, useCallback, useEffect, useState, type KeyboardEvent } from "react";
import {
  followJob, get, post, put, remove, uploadFile,
  type ChunkState, type ChunkTreeFile, type ChunkTreeFolder, type ChunkTreeReport, type ChunkView, type Conversation, type ConversationSummary, type Folder, type Job, type JobEvent, type KeyDescription, type Provider, type SearchReport,
} from "./api.js";
import { Button, Card, Dialog, IconButton, Pill, ProgressBar, Tree, type TreeNode } from "./components.js";

// pdf.js is large: loaded the first time a PDF page is shown.
const PdfPage = lazy(async () => ({ default: (await import("./PdfPage.js")).PdfPage }));

type View = "documents" | "search" | "chat" | "settings";
type Theme = "system" | "light" | "dark" | "contrast";

const VIEWS: Array<{ id: View; label: string }> = [
  { id: "documents", label: "Documents" },
  { id: "search", label: "Search" },
  { id: "chat", label: "Chat" },
  { id: "settings", label: "Settings" },
];

export function App() {
  const [view, setView] = useState<View>("documents");
  const [folders, setFolders] = useState<Folder[] | null>(null);
  const [panelRef, setPanelRef] = useState<string | null>(null);
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem("chunkpad-theme") as Theme | null) ?? "system");
  const refreshFolders = useCallback(() => {
    void get<{ folders: Folder[] }>("/api/folders").then((answer) => setFolders(answer.folders));
  }, []);
  useEffect(refreshFolders, [refreshFolders]);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem("chunkpad-theme", theme);
  }, [theme]);

  return (
    <div className="app">
      <header className="topbar">
        <h1 className="brand">Chunkpad</h1>
        <nav aria-label="Views" className="tabs" role="tablist">
          {VIEWS.map((entry) => (
            <button key={entry.id} type="button" role="tab" aria-selected={view === entry.id} className="tab" onClick={() => setView(entry.id)}>
              {entry.label}
            </button>
          ))}
        </nav>
      </header>
      <main className="main">
        {view === "documents" && <DocumentsView folders={folders} onChanged={refreshFolders} />}
        {view === "search" && <SearchView onOpen={setPanelRef} hasFolders={(folders?.length ?? 0) > 0} folders={folders ?? []} />}
        {view === "chat" && <ChatView onOpen={setPanelRef} hasFolders={(folders?.length ?? 0) > 0} />}
        {view === "settings" && <SettingsView theme={theme} onTheme={setTheme} onCleared={refreshFolders} />}
      </main>
      {panelRef && <ChunkPanel chunkRef={panelRef} onClose={() => setPanelRef(null)} />}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Documents: folders, the document list, each document's chunks with include/exclude, embedding

function useJob() {
  const [job, setJob] = useState<Job | null>(null);
  const [progress, setProgress] = useState<{ label: string; value: number | null } | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const start = useCallback(async (body: Record<string, unknown>, onDone: () => void) => {
    setOutcome(null);
    attach(await post<Job>("/api/jobs", body), onDone);
  }, []);
  /** Follows a job, new or already running (a tab reopened while it ran sees it from its start). */
  const attach = useCallback((started: Job, onDone: () => void) => {
    setJob(started);
    setProgress({ label: "Starting…", value: null });
    followJob(started, (event: JobEvent) => {
      const data = event.data;
      if (event.type === "process-progress") setProgress({ label: `Processing ${String(data.file ?? "")}`, value: Number(data.total) > 0 ? (Number(data.done) / Number(data.total)) * 100 : null });
      if (event.type === "embed-progress" && data.phase === "embed") setProgress({ label: `Embedding ${String(data.done)} of ${String(data.total)} chunks`, value: Number(data.total) > 0 ? (Number(data.done) / Number(data.total)) * 100 : null });
      if (event.type === "embed-progress" && data.phase === "model") {
        const status = data.status as { state?: string; percent?: number };
        setProgress({ label: status.state === "downloading" ? "Downloading the embedding model" : "Loading the embedding model", value: status.percent ?? null });
      }
      if (event.type === "job-done" || event.type === "job-failed" || event.type === "job-cancelled") {
        setJob(null);
        setProgress(null);
        const error = (data.error as { message?: string } | undefined)?.message;
        setOutcome(event.type === "job-done" ? "Done." : event.type === "job-cancelled" ? "Cancelled." : `Failed: ${error ?? "unknown error"}`);
        onDone();
      }
    });
  }, []);
  const cancel = useCallback(() => {
    if (job) void remove(`/api/jobs/${job.id}`);
  }, [job]);
  return { job, progress, outcome, start, cancel, attach };
}

function DocumentsView({ folders, onChanged }: { folders: Folder[] | null; onChanged: () => void }) {
  const [selected, setSelected] = useState<string | null>(null);
  const [path, setPath] = useState("");
  const [consentOpen, setConsentOpen] = useState(false);
  const [picking, setPicking] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [model, setModel] = useState<{ model: string; state: string; approximateBytes: number | null } | null>(null);
  useEffect(() => {
    if (consentOpen) void get<{ embeddingModel: { model: string; state: string; approximateBytes: number | null } }>("/api/status").then((status) => setModel(status.embeddingModel));
  }, [consentOpen]);
  const [uploadMessage, setUploadMessage] = useState<string | null>(null);
  const { job, progress, outcome, start, cancel, attach } = useJob();
  // A process or embed job still running (started in a tab since closed) is shown again.
  useEffect(() => {
    void get<{ runningJobs: Array<Job & { subject: string | null }> }>("/api/status").then((status) => {
      const running = status.runningJobs.find((candidate) => candidate.kind !== "ask");
      if (running) attach({ ...running, state: "running" }, onChanged);
    });
  }, [attach, onChanged]);
  const folder = folders?.find((candidate) => candidate.id === selected) ?? folders?.[0] ?? null;
  /** Copies dropped or chosen files into the folder, then processes it. */
  const upload = async (files: File[]) => {
    if (!folder || files.length === 0) return;
    const problems: string[] = [];
    for (const file of files) await uploadFile(folder.id, file).catch((failure: Error) => problems.push(`${file.name}: ${failure.message}`));
    setUploadMessage(problems.length === 0 ? `Copied ${files.length} file${files.length === 1 ? "" : "s"} into the folder.` : problems.join(" "));
    if (problems.length < files.length) await start({ kind: "process", folder: folder.rootPath }, onChanged);
  };

  return (
    <div className="split">
      <aside className="sidebar" aria-label="Folders">
        <form
          className="add-folder"
          onSubmit={(event) => {
            event.preventDefault();
            if (path.trim() !== "") void start({ kind: "process", folder: path.trim() }, onChanged);
          }}
        >
          <label htmlFor="folder-path">Folder to add</label>
          <input id="folder-path" value={path} onChange={(event) => setPath(event.target.value)} placeholder="/home/me/Documents/reports" />
          <div className="dialog-actions">
            <Button onClick={() => setPicking(true)}>Browse…</Button>
            <Button type="submit" variant="primary" disabled={job !== null}>
              Add folder
            </Button>
          </div>
        </form>
        {folders === null ? <p>Loading…</p> : folders.length === 0 ? <p className="empty">No folder yet. Type the path of a folder of documents above and choose Add folder.</p> : null}
        <ul className="folder-list" role="listbox" aria-label="Added folders" onKeyDown={moveFocusWithArrows}>
          {folders?.map((entry) => (
            <li key={entry.id} role="option" aria-selected={entry.id === folder?.id} tabIndex={0} className="folder" onClick={() => setSelected(entry.id)} onKeyDown={(event) => event.key === "Enter" && setSelected(entry.id)}>
              <span className="folder-path">{entry.rootPath}</span>
              <span className="folder-counts">
                <Pill>{entry.documentCount} documents</Pill> <Pill tone={entry.embeddedChunkCount > 0 ? "good" : "neutral"}>{entry.embeddedChunkCount} of {entry.includedChunkCount} embedded</Pill>
                {entry.failedCount > 0 && <Pill tone="bad">{entry.failedCount} failed</Pill>}
              </span>
            </li>
          ))}
        </ul>
        {progress && (
          <div className="job" aria-live="polite">
            <ProgressBar value={progress.value} label={progress.label} />
            <p>{progress.label}</p>
            <Button onClick={cancel}>Cancel</Button>
          </div>
        )}
        {outcome && <p role="status">{outcome}</p>}
      </aside>
      <section
        className={dragging ? "content dropping" : "content"}
        aria-label="Documents and chunks"
        onDragOver={(event) => {
          if (!folder) return;
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          void upload(Array.from(event.dataTransfer.files));
        }}
      >
        {folder ? (
          <>
            <div className="toolbar">
              <h2>{folder.rootPath}</h2>
              <div className="dialog-actions">
                <label className="button button-default upload">
                  Upload files…
                  <input type="file" multiple className="visually-hidden" aria-label="Upload files into this folder" onChange={(event) => void upload(Array.from(event.target.files ?? []))} />
                </label>
                <Button disabled={job !== null} onClick={() => void start({ kind: "process", folder: folder.rootPath }, onChanged)}>
                  Process changes
                </Button>
                <Button variant="primary" disabled={job !== null} onClick={() => setConsentOpen(true)}>
                  Embed selected
                </Button>
              </div>
            </div>
            <div className="toolbar">
              <p className="meta">Drop documents here to copy them into this folder; they are processed at once.</p>
              <div className="dialog-actions">
                <span className="meta">Whole folder:</span>
                <Button
                  aria-label="Exclude all chunks of this folder"
                  onClick={() => void post("/api/review", { targets: [folder.rootPath], included: false }).finally(onChanged)}
                >
                  Exclude all
                </Button>
                <Button aria-label="Include all chunks of this folder" onClick={() => void post("/api/review", { targets: [folder.rootPath], included: true }).finally(onChanged)}>
                  Include all
                </Button>
              </div>
            </div>
            {uploadMessage && <p role="status">{uploadMessage}</p>}
            <FolderBrowser folder={folder} onChanged={onChanged} />
          </>
        ) : (
          <p className="empty">Add a folder to see its documents and chunks here.</p>
        )}
      </section>
      <FolderPicker
        open={picking}
        start={path}
        onClose={() => setPicking(false)}
        onChoose={(chosen) => {
          setPath(chosen);
          setPicking(false);
        }}
      />
      <Dialog title="Embed the included chunks" open={consentOpen} onClose={() => setConsentOpen(false)}>
        <p>
          Model: <strong>{model?.model ?? "…"}</strong>
          {model?.state === "ready" ? " (already on this computer)" : model?.approximateBytes ? ` (about ${Math.round(model.approximateBytes / 1_000_000)} MB to download once)` : " (downloaded once; size unknown)"}.
        </p>
        <p>Then every included chunk that is new or changed is embedded. Your documents never leave this computer.</p>
        <div className="dialog-actions">
          <Button onClick={() => setConsentOpen(false)}>Not now</Button>
          <Button
            variant="primary"
            onClick={() => {
              setConsentOpen(false);
              if (folder) void start({ kind: "embed", folder: folder.id, consent: true }, onChanged);
            }}
          >
            Download if needed and embed
          </Button>
        </div>
      </Dialog>
    </div>
  );
}

/** Arrow keys move between the options of a list box (Home and End to its ends); Enter selects. */
function moveFocusWithArrows(event: KeyboardEvent<HTMLElement>) {
  const keys = ["ArrowDown", "ArrowUp", "Home", "End"];
  if (!keys.includes(event.key)) return;
  const items = Array.from(event.currentTarget.querySelectorAll<HTMLElement>(":scope > li[role='option']"));
  if (items.length === 0) return;
  event.preventDefault();
  const current = items.findIndex((item) => item === document.activeElement);
  const next = event.key === "Home" ? 0 : event.key === "End" ? items.length - 1 : Math.min(items.length - 1, Math.max(0, current + (event.key === "ArrowDown" ? 1 : -1)));
  items[next]?.focus();
}

/** A folder picker over the server's folders (the app runs in a browser, which cannot name local paths). */
function FolderPicker({ open, start, onClose, onChoose }: { open: boolean; start: string; onClose: () => void; onChoose: (path: string) => void }) {
  const [listing, setListing] = useState<{ path: string; parent: string | null; folders: string[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const browse = useCallback((target: string) => {
    setError(null);
    get<{ path: string; parent: string | null; folders: string[] }>(`/api/browse?path=${encodeURIComponent(target)}`).then(setListing, (failure: Error) => setError(failure.message));
  }, []);
  useEffect(() => {
    if (open) browse(start);
  }, [open, start, browse]);
  const join = (base: string, name: string) => `${base.replace(/[\\/]$/, "")}/${name}`;
  return (
    <Dialog title="Choose a folder" open={open} onClose={onClose}>
      {error && <p role="alert">{error}</p>}
      {listing && (
        <>
          <p className="folder-path">{listing.path}</p>
          <ul className="picker" aria-label="Folders" tabIndex={0}>
            {listing.parent && (
              <li>
                <button type="button" className="document" onClick={() => browse(listing.parent as string)}>
                  .. (up)
                </button>
              </li>
            )}
            {listing.folders.map((name) => (
              <li key={name}>
                <button type="button" className="document" onClick={() => browse(join(listing.path, name))}>
                  {name}
                </button>
              </li>
            ))}
          </ul>
          <div className="dialog-actions">
            <Button onClick={onClose}>Cancel</Button>
            <Button variant="primary" onClick={() => onChoose(listing.path)}>
              Choose this folder
            </Button>
          </div>
        </>
      )}
    </Dialog>
  );
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

/** The badges of one file in the tree: what the user would want to act on first comes first. */
function fileBadges(file: ChunkTreeFile, anyEmbedded: boolean): Array<{ text: string; tone: "neutral" | "good" | "warn" | "bad" }> {
  const badges: Array<{ text: string; tone: "neutral" | "good" | "warn" | "bad" }> = [];
  if (file.failed) badges.push({ text: "failed", tone: "bad" });
  if (file.conflict) badges.push({ text: "conflict", tone: "bad" });
  const excluded = file.chunkCount - file.includedCount;
  if (file.chunkCount > 0 && excluded === file.chunkCount) badges.push({ text: "excluded", tone: "neutral" });
  else if (excluded > 0) badges.push({ text: `${excluded} excluded`, tone: "neutral" });
  if (file.modifiedCount > 0) badges.push({ text: `${file.modifiedCount} modified`, tone: "warn" });
  if (anyEmbedded && file.newCount > 0) badges.push({ text: file.newCount === file.chunkCount ? "new" : `${file.newCount} new`, tone: "warn" });
  if (file.chunkCount > 0 && file.embeddedCount === file.chunkCount) badges.push({ text: "embedded", tone: "good" });
  return badges;
}

/** The folder's chunk files as a tree with badges; the chosen file's chunks beside it. */
function FolderBrowser({ folder, onChanged }: { folder: Folder; onChanged: () => void }) {
  const [report, setReport] = useState<ChunkTreeReport | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const load = useCallback(() => {
    void get<ChunkTreeReport>(`/api/folders/${folder.id}/tree`).then(setReport);
  }, [folder.id]);
  // Reloaded whenever the folder's summary is fetched again (after a job, a review, an edit).
  useEffect(load, [load, folder]);
  if (report === null) return <p>Loading…</p>;
  if (report.tree.children.length === 0) return <p className="empty">This folder has no documents Chunkpad can read yet. Drop some here, or copy them into the folder and choose Process changes.</p>;
  const files: ChunkTreeFile[] = [];
  const collect = (node: ChunkTreeFolder) => node.children.forEach((child) => (child.type === "file" ? files.push(child) : collect(child)));
  collect(report.tree);
  const anyEmbedded = files.some((file) => file.embeddedCount + file.modifiedCount > 0);
  const toNodes = (node: ChunkTreeFolder): TreeNode[] =>
    node.children.map((child) => {
      if (child.type === "folder") {
        return { id: `folder:${child.path}`, label: <><span className="tree-name">{child.name}/</span> <Pill>{plural(child.fileCount, "file")}</Pill></>, children: toNodes(child) };
      }
      const badges = fileBadges(child, anyEmbedded);
      const base = child.path.split("/").at(-1) ?? child.path;
      return {
        id: child.path,
        label: (
          <>
            <span className="tree-name">{base}</span> {!child.failed && <Pill>{plural(child.chunkCount, "chunk")}</Pill>}
            {badges.map((badge) => (
              <Fragment key={badge.text}>
                {" "}
                <Pill tone={badge.tone}>{badge.text}</Pill>
              </Fragment>
            ))}
          </>
        ),
      };
    });
  const file = files.find((candidate) => candidate.path === selected) ?? null;
  const resolve = (choice: "keep-mine" | "take-fresh") => {
    if (!file) return;
    post<{ resolved: boolean }>(`/api/folders/${folder.id}/resolve`, { file: file.path, choice }).then(
      (outcome) => {
        setMessage(outcome.resolved ? (choice === "keep-mine" ? `Kept your edit of ${file.path}.` : `Replaced the chunks of ${file.path} with fresh ones.`) : `${file.path} had no conflict to settle.`);
        onChanged();
      },
      (failure: Error) => setMessage(failure.message),
    );
  };
  return (
    <div className="browser">
      <nav aria-label="Chunk files">
        <Tree label="Chunk files" nodes={toNodes(report.tree)} selected={selected} onSelect={(node) => {
          setMessage(null);
          setSelected(node.id);
        }} />
      </nav>
      <section aria-label={file ? `Chunks of ${file.path}` : "Chunks"}>
        {message && <p role="status">{message}</p>}
        {!file && <p className="empty">Choose a file in the tree to review its chunks: include or exclude each one, or edit its text.</p>}
        {file?.failed && (
          <div className="failure" role="note" aria-label={`Why ${file.path} failed`}>
            <p>
              <strong>{file.path} could not be read</strong> ({file.failed.code}): {file.failed.message}
            </p>
            <p className="meta">Fix or replace the file, then choose Process changes. Other files are not affected.</p>
          </div>
        )}
        {file?.conflict && (
          <div className="conflict" role="note" aria-label={`Conflict in ${file.path}`}>
            <p>
              <strong>{file.path} changed</strong> after its chunk file was edited. Search uses your edited chunks until you choose:
            </p>
            <div className="dialog-actions">
              <Button onClick={() => resolve("keep-mine")}>Keep my edit</Button>
              <Button variant="primary" onClick={() => resolve("take-fresh")}>
                Take fresh chunks
              </Button>
            </div>
          </div>
        )}
        {file && file.chunkCount > 0 && (
          <ChunkList
            folder={folder}
            document={file.path}
            onChanged={() => {
              onChanged();
            }}
          />
        )}
      </section>
    </div>
  );
}

function ChunkList({ folder, document, onChanged }: { folder: Folder; document: string; onChanged: () => void }) {
  const [chunks, setChunks] = useState<ChunkState[] | null>(null);
  const load = useCallback(() => {
    void get<{ chunks: ChunkState[] }>(`/api/folders/${folder.id}/chunks?document=${encodeURIComponent(document)}`).then((answer) => setChunks(answer.chunks));
  }, [folder.id, document]);
  useEffect(load, [load]);
  if (chunks === null) return <p>Loading…</p>;
  const setAll = (included: boolean) => {
    void post("/api/review", { targets: [document], included, folders: [folder.id] }).finally(() => {
      load();
      onChanged();
    });
  };
  return (
    <>
    <div className="toolbar">
      <h3 className="file-title">{document}</h3>
      <div className="dialog-actions">
        <Button onClick={() => setAll(false)} aria-label={`Exclude all chunks of ${document}`}>
          Exclude all
        </Button>
        <Button onClick={() => setAll(true)} aria-label={`Include all chunks of ${document}`}>
          Include all
        </Button>
      </div>
    </div>
    <ol className="chunks" aria-label={`Chunks of ${document}`}>
      {chunks.map((chunk) => (
        <li key={chunk.ref} className={chunk.included ? "chunk" : "chunk chunk-excluded"}>
          <label>
            <input
              type="checkbox"
              checked={chunk.included}
              aria-label={`Include chunk ${chunk.ordinal}`}
              onChange={(event) => {
                const included = event.target.checked;
                // Shown at once; the server's answer (or a failure) settles it.
                setChunks((all) => all?.map((other) => (other.ref === chunk.ref ? { ...other, included } : other)) ?? null);
                void post("/api/review", { targets: [chunk.ref], included }).finally(() => {
                  load();
                  onChanged();
                });
              }}
            />{" "}
            <strong>Chunk {chunk.ordinal}</strong> {chunk.location && <Pill>{chunk.location}</Pill>} <Pill tone={chunk.embedState === "embedded" ? "good" : chunk.embedState === "modified" ? "warn" : "neutral"}>{chunk.embedState}</Pill>
          </label>
          <p className="preview">{chunk.preview}</p>
          <ChunkEditor chunkRef={chunk.ref} ordinal={chunk.ordinal} onSaved={load} />
        </li>
      ))}
    </ol>
    </>
  );
}

/** Edits a chunk's text in its chunk file; a change made elsewhere meanwhile is reported, never overwritten. */
function ChunkEditor({ chunkRef, ordinal, onSaved }: { chunkRef: string; ordinal: number; onSaved: () => void }) {
  const [editing, setEditing] = useState<{ text: string; baseHash: string } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const open = async () => {
    setMessage(null);
    const view = await get<ChunkView>(`/api/chunks/${encodeURIComponent(chunkRef)}?neighbours=0`);
    setEditing({ text: view.chunk.text, baseHash: view.chunk.contentHash });
  };
  const save = async () => {
    if (!editing) return;
    try {
      await put(`/api/chunks/${encodeURIComponent(chunkRef)}`, editing);
      setEditing(null);
      setMessage("Saved to the chunk file.");
      onSaved();
    } catch (failure) {
      setMessage((failure as Error).message);
    }
  };
  if (!editing) {
    return (
      <>
        <Button onClick={() => void open()} aria-label={`Edit chunk ${ordinal}`}>
          Edit
        </Button>
        {message && <span role="status"> {message}</span>}
      </>
    );
  }
  return (
    <div className="editor">
      <label htmlFor={`edit-${chunkRef}`}>Text of chunk {ordinal}</label>
      <textarea id={`edit-${chunkRef}`} rows={8} value={editing.text} onChange={(event) => setEditing({ ...editing, text: event.target.value })} />
      <div className="dialog-actions">
        <Button onClick={() => setEditing(null)}>Cancel</Button>
        <Button variant="primary" onClick={() => void save()}>
          Save chunk {ordinal}
        </Button>
      </div>
      {message && <p role="alert">{message}</p>}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Search

function SearchView({ onOpen, hasFolders, folders }: { onOpen: (ref: string) => void; hasFolders: boolean; folders: Folder[] }) {
  const [query, setQuery] = useState("");
  const [mode, setMode] = useState("auto");
  const [inFolder, setInFolder] = useState("");
  const [inDocument, setInDocument] = useState("");
  const [report, setReport] = useState<SearchReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setError(null);
    try {
      setReport(await get<SearchReport>(`/api/search?q=${encodeURIComponent(query)}${mode === "auto" ? "" : `&mode=${mode}`}${inFolder ? `&folder=${encodeURIComponent(inFolder)}` : ""}${inDocument.trim() ? `&document=${encodeURIComponent(inDocument.trim())}` : ""}`));
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  if (!hasFolders) return <p className="empty">Nothing to search yet: add a folder under Documents first.</p>;
  return (
    <div className="stack">
      <form
        className="search-form"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <label htmlFor="search-query">Search your documents</label>
        <input id="search-query" value={query} onChange={(event) => setQuery(event.target.value)} />
        <label htmlFor="search-mode">Mode</label>
        <select id="search-mode" value={mode} onChange={(event) => setMode(event.target.value)}>
          <option value="auto">Best available</option>
          <option value="keyword">Keyword</option>
          <option value="vector">Meaning</option>
          <option value="hybrid">Hybrid</option>
        </select>
        <label htmlFor="search-folder">In</label>
        <select id="search-folder" value={inFolder} onChange={(event) => setInFolder(event.target.value)}>
          <option value="">Every folder</option>
          {folders.map((folder) => (
            <option key={folder.id} value={folder.id}>
              {folder.rootPath}
            </option>
          ))}
        </select>
        <label htmlFor="search-document">Only in document</label>
        <input id="search-document" value={inDocument} onChange={(event) => setInDocument(event.target.value)} placeholder="name or path, e.g. report.pdf" />
        <Button type="submit" variant="primary">
          Search
        </Button>
      </form>
      {error && <p role="alert">{error}</p>}
      {report && (
        <Card label="Search results">
          <p className="meta">
            {report.results.length} results · {report.mode}
            {report.fusion ? ` · fused by ${report.fusion}` : ""}
            {report.rerank ? ` · reranked ${report.rerank.scored} of ${report.rerank.candidates} by ${report.rerank.model} in ${Math.round(report.rerank.durationMs)} ms` : ""}
          </p>
          {report.keywordQuery && <p className="explain">keyword query: {report.keywordQuery}</p>}
          {report.notices.map((notice) => (
            <p key={notice} className="notice">
              {notice}
            </p>
          ))}
          <ol className="results">
            {report.results.map((result) => (
              <li key={result.ref}>
                <button type="button" className="result" onClick={() => onOpen(result.ref)}>
                  <span className="relevance">{result.relevancePercent}%</span> <strong>{result.relativePath}</strong> {result.location && <Pill>{result.location}</Pill>}
                </button>
                <p className="preview">{result.snippet}</p>
                <p className="explain">
                  score {result.score.toFixed(3)}
                  {result.distance !== undefined && ` · vector distance ${result.distance.toFixed(3)} (rank ${result.vectorRank})`}
                  {result.keywordScore !== undefined && ` · keyword score ${result.keywordScore.toPrecision(3)} (rank ${result.keywordRank})`}
                  {result.fusedScore !== undefined && ` · fused ${result.fusedScore.toFixed(3)}`}
                  {result.rerankScore !== undefined && ` · rerank ${result.rerankScore.toFixed(3)} (rank ${result.rerankRank})`}
                  {result.moreInDocument && ` · ${result.moreInDocument.length} more in this document`}
                </p>
              </li>
            ))}
          </ol>
        </Card>
      )}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Chat

interface Turn {
  question: string;
  /** The error's code, when the answer failed (MODEL_CONSENT_REQUIRED offers the download). */
  errorCode?: string;
  /** Download of the local model, in percent, while it runs. */
  download?: number | null;
  chunks: Array<{ number: number; ref: string; relativePath: string; location: string | null; relevancePercent: number; included: boolean }>;
  answer: string;
  citations: Array<{ label: string; ref: string }>;
  done: boolean;
  error: string | null;
}

function ChatView({ onOpen, hasFolders }: { onOpen: (ref: string) => void; hasFolders: boolean }) {
  const [question, setQuestion] = useState("");
  const [turns, setTurns] = useState<Turn[]>([]);
  const [conversationId, setConversationId] = useState<string | null>(null);
  const busy = turns.some((turn) => !turn.done);
  const update = (change: (turn: Turn) => Turn) => setTurns((all) => [...all.slice(0, -1), change(all.at(-1) as Turn)]);

  /** Follows an answer job into the last turn. */
  const follow = (job: Job) =>
    followJob(job, (event) => {
      const data = event.data;
      if (event.type === "chunks") update((turn) => ({ ...turn, chunks: (data.chunks as Turn["chunks"]).map((chunk) => ({ ...chunk, included: chunk.included !== false })) }));
      if (event.type === "text-delta") update((turn) => ({ ...turn, answer: turn.answer + String(data.text) }));
      if (event.type === "refused") update((turn) => ({ ...turn, answer: `${String(data.text)} ${String(data.message)}` }));
      if (event.type === "final") {
        const answer = data.answer as { citations: Turn["citations"]; conversationId: string | null };
        if (answer.conversationId) setConversationId(answer.conversationId);
        update((turn) => ({ ...turn, citations: answer.citations }));
      }
      if (event.type === "download-progress") update((turn) => ({ ...turn, download: Number(data.percent) }));
      // An answer that failed mid-way (the model could not load, the connection dropped) keeps what arrived.
      if (event.type === "error") {
        const error = data.error as { message?: string; code?: string };
        update((turn) => ({ ...turn, error: error.message ?? "failed", ...(error.code ? { errorCode: error.code } : {}) }));
      }
      if (event.type === "job-failed") {
        const error = data.error as { message?: string; code?: string };
        update((turn) => ({ ...turn, error: error.message ?? "failed", ...(error.code ? { errorCode: error.code } : {}) }));
      }
      if (event.type === "job-done" || event.type === "job-failed" || event.type === "job-cancelled") update((turn) => ({ ...turn, done: true, download: null }));
    });

  /** The last question again, agreeing to download the local model it needs. */
  const askWithDownload = async () => {
    const last = turns.at(-1);
    if (!last) return;
    update((turn) => ({ ...turn, answer: "", error: null, errorCode: undefined, done: false, download: 0 }) as Turn);
    try {
      follow(await post<Job>("/api/ask", { question: last.question, consent: true, ...(conversationId ? { conversationId } : {}), ...(provider ? { provider } : {}), ...(model.trim() ? { model: model.trim() } : {}), ...(strict ? { strict: true } : {}) }));
    } catch (failure) {
      update((turn) => ({ ...turn, error: (failure as Error).message, done: true }));
    }
  };

  /** The last question again, from the chunks left switched on; no new search. */
  const regenerate = async () => {
    const last = turns.at(-1);
    if (!last || !conversationId || busy) return;
    update((turn) => ({ ...turn, answer: "", citations: [], done: false, error: null }));
    try {
      follow(await post<Job>("/api/regenerate", { conversationId, included: last.chunks.filter((chunk) => chunk.included).map((chunk) => chunk.number) }));
    } catch (failure) {
      update((turn) => ({ ...turn, error: (failure as Error).message, done: true }));
    }
  };

  const send = async () => {
    const text = question.trim();
    if (text === "" || busy) return;
    setQuestion("");
    setTurns((all) => [...all, { question: text, chunks: [], answer: "", citations: [], done: false, error: null }]);
    try {
      follow(await post<Job>("/api/ask", { question: text, ...(conversationId ? { conversationId } : {}), ...(provider ? { provider } : {}), ...(model.trim() ? { model: model.trim() } : {}), ...(strict ? { strict: true } : {}), ...(pin.trim() ? { pins: [pin.trim()] } : {}) }));
    } catch (failure) {
      update((turn) => ({ ...turn, error: (failure as Error).message, done: true }));
    }
  };
  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      void send();
    }
  };
  const [conversations, setConversations] = useState<ConversationSummary[]>([]);
  const [providers, setProviders] = useState<Provider[]>([]);
  const [provider, setProvider] = useState("");
  const [model, setModel] = useState("");
  const [strict, setStrict] = useState(false);
  const [pin, setPin] = useState("");
  useEffect(() => {
    void get<{ providers: Provider[] }>("/api/providers").then((answer) => setProviders(answer.providers));
  }, []);
  useEffect(() => {
    void get<{ conversations: ConversationSummary[] }>("/api/conversations").then((answer) => setConversations(answer.conversations));
  }, [conversationId]);
  const chosen = providers.find((entry) => (provider ? entry.provider === provider : entry.selected));
  const openConversation = async (id: string) => {
    const conversation = await get<Conversation>(`/api/conversations/${encodeURIComponent(id)}`);
    const loaded: Turn[] = [];
    for (const message of conversation.messages) {
      if (message.role === "user") loaded.push({ question: message.content, chunks: [], answer: "", citations: [], done: true, error: null });
      else if (message.role === "assistant" && loaded.length > 0) (loaded.at(-1) as Turn).answer = message.content;
    }
    setTurns(loaded);
    setConversationId(conversation.id);
  };
  if (!hasFolders) return <p className="empty">Add a folder under Documents, then ask about it here.</p>;
  return (
    <div className="stack chat">
      {conversations.length > 0 && (
        <nav aria-label="Conversations" className="conversations">
          <Button
            onClick={() => {
              setTurns([]);
              setConversationId(null);
            }}
          >
            New conversation
          </Button>
          <ul tabIndex={0} aria-label="Recent conversations">
            {conversations.slice(0, 20).map((conversation) => (
              <li key={conversation.id}>
                <button type="button" className="document" aria-current={conversation.id === conversationId} onClick={() => void openConversation(conversation.id)}>
                  {conversation.title} <Pill>{conversation.messageCount} messages</Pill>
                </button>
              </li>
            ))}
          </ul>
        </nav>
      )}
      {turns.length === 0 && <p className="empty">Ask a question about your documents. Answers cite the chunks they use; click a citation to read it.</p>}
      {providers.length > 0 && !providers.some((entry) => entry.ready) && (
        <p className="notice" role="note">
          No answer provider is ready yet: add an Anthropic or OpenAI key, start Ollama, or download the local model under Settings → Answer providers. Until then, Search finds the chunks.
        </p>
      )}
      {turns.map((turn, index) => (
        <Card key={index} label={`Question ${index + 1}`}>
          <p className="question">{turn.question}</p>
          {turn.chunks.length > 0 && (
            <ul className="chunk-bar" aria-label="Chunks found">
              {turn.chunks.map((chunk) => (
                <li key={chunk.ref} className={chunk.included ? "chunk-chip" : "chunk-chip chunk-off"}>
                  <input
                    type="checkbox"
                    checked={chunk.included}
                    disabled={index !== turns.length - 1 || !turn.done}
                    aria-label={`Use C${chunk.number} for the answer`}
                    onChange={(event) => {
                      const included = event.target.checked;
                      update((last) => ({ ...last, chunks: last.chunks.map((other) => (other.ref === chunk.ref ? { ...other, included } : other)) }));
                    }}
                  />
                  <button type="button" className="chip-open" onClick={() => onOpen(chunk.ref)}>
                    C{chunk.number} · {chunk.relativePath} {chunk.location ?? ""} · {chunk.relevancePercent}%
                  </button>
                </li>
              ))}
            </ul>
          )}
          <div className="answer" aria-live="polite" aria-busy={!turn.done}>
            {renderAnswer(turn, onOpen)}
          </div>
          {turn.download !== undefined && turn.download !== null && <ProgressBar value={turn.download} label="Downloading the local model" />}
          {turn.error && <p role="alert">{turn.error}</p>}
          {index === turns.length - 1 && turn.errorCode === "MODEL_CONSENT_REQUIRED" && (
            <Dialog title="Download the local model?" open onClose={() => update((last) => ({ ...last, errorCode: undefined }) as Turn)}>
              <p>{turn.error}</p>
              <p>It is downloaded once into Chunkpad's model cache; answers then run on this computer.</p>
              <div className="dialog-actions">
                <Button onClick={() => update((last) => ({ ...last, errorCode: undefined }) as Turn)}>Not now</Button>
                <Button variant="primary" onClick={() => void askWithDownload()}>
                  Download and answer
                </Button>
              </div>
            </Dialog>
          )}
          {index === turns.length - 1 && turn.done && conversationId && turn.chunks.length > 0 && (
            <Button onClick={() => void regenerate()}>Regenerate with the chunks switched on</Button>
          )}
        </Card>
      ))}
      <form
        className="ask-form"
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <label htmlFor="question">Question</label>
        <textarea id="question" rows={3} value={question} onChange={(event) => setQuestion(event.target.value)} onKeyDown={onKey} placeholder="Enter sends, Shift+Enter adds a line" />
        <div className="ask-options">
          <label htmlFor="provider">Answered by</label>
          <select
            id="provider"
            value={provider}
            onChange={(event) => {
              setProvider(event.target.value);
              setModel("");
            }}
          >
            <option value="">The configured provider</option>
            {providers.map((entry) => (
              <option key={entry.provider} value={entry.provider} disabled={!entry.ready && entry.provider !== "local"}>
                {entry.provider} ({entry.model}){entry.ready ? "" : ", not ready"}
              </option>
            ))}
          </select>
          <label htmlFor="answer-model">Model</label>
          <input id="answer-model" list="answer-models" value={model} onChange={(event) => setModel(event.target.value)} placeholder={`${chosen?.model ?? "the provider's model"} (as configured)`} />
          <datalist id="answer-models">
            {[...new Set([chosen?.model, ...(chosen?.installedModels ?? [])].filter((name): name is string => Boolean(name)))].map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
          <label htmlFor="pin">Pin a document (its chunks come first)</label>
          <input id="pin" value={pin} onChange={(event) => setPin(event.target.value)} placeholder="file name or path, e.g. report.txt" />
          <label className="inline">
            <input type="checkbox" checked={strict} onChange={(event) => setStrict(event.target.checked)} /> Strict: answer only with sentences from the chunks
          </label>
        </div>
        <Button type="submit" variant="primary" disabled={busy}>
          Ask
        </Button>
      </form>
    </div>
  );
}

/** The answer with each [C#] as a button that opens the cited chunk. */
function renderAnswer(turn: Turn, onOpen: (ref: string) => void) {
  const parts = turn.answer.split(/(\[C\d+\])/g);
  return (
    <p>
      {parts.map((part, index) => {
        const label = /^\[(C\d+)\]$/.exec(part)?.[1];
        const chunk = label ? turn.chunks.find((candidate) => `C${candidate.number}` === label) : undefined;
        return chunk ? (
          <button key={index} type="button" className="citation" aria-label={`Open citation ${label}`} onClick={() => onOpen(chunk.ref)}>
            [{label}]
          </button>
        ) : (
          <span key={index}>{part}</span>
        );
      })}
    </p>
  );
}

// ---------------------------------------------------------------------------------------------
// Settings and the chunk panel

function SettingsView({ theme, onTheme, onCleared }: { theme: Theme; onTheme: (theme: Theme) => void; onCleared: () => void }) {
  const [status, setStatus] = useState<Record<string, unknown> | null>(null);
  useEffect(() => {
    void get<Record<string, unknown>>("/api/status").then(setStatus);
  }, []);
  const model = status?.embeddingModel as { model?: string; state?: string } | undefined;
  return (
    <div className="stack">
      <Card label="Appearance">
        <h2>Appearance</h2>
        <label htmlFor="theme">Theme</label>
        <select id="theme" value={theme} onChange={(event) => onTheme(event.target.value as Theme)}>
          <option value="system">As the system</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
          <option value="contrast">High contrast</option>
        </select>
      </Card>
      <ProvidersCard />
      <SettingsCard />
      <Card label="Embedding model">
        <h2>Embedding model</h2>
        <p>
          {model?.model ?? "…"} <Pill tone={model?.state === "ready" ? "good" : "warn"}>{model?.state ?? "…"}</Pill>
        </p>
        <p className="meta">Change it with "chunkpad config set embedding.model …"; the app shows what the server uses.</p>
      </Card>
      <ClearDataCard onCleared={onCleared} />
    </div>
  );
}

const CONFIRMATION = "delete all data";

/** Settings → Clear all data: what `chunkpad reset` deletes, after the user types the confirmation. */
function ClearDataCard({ onCleared }: { onCleared: () => void }) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const [also, setAlso] = useState({ models: false, keys: false, chunkFiles: false });
  const [message, setMessage] = useState<string | null>(null);
  const clear = () => {
    post<{ deleted: Array<{ kind: string; target: string }>; failed: Array<{ target: string; reason: string }> }>("/api/reset", { confirm: typed, ...also }).then(
      (report) => {
        setOpen(false);
        setTyped("");
        setMessage(
          report.failed.length === 0
            ? `Deleted ${report.deleted.length} item${report.deleted.length === 1 ? "" : "s"}. Your documents were not touched; add a folder to start again.`
            : `Some items could not be deleted: ${report.failed.map((failure) => `${failure.target} (${failure.reason})`).join("; ")}.`,
        );
        onCleared();
      },
      (failure: Error) => setMessage(failure.message),
    );
  };
  return (
    <Card label="Clear all data">
      <h2>Clear all data</h2>
      <p>Deletes Chunkpad's database (chunks, vectors, review state), chat history, settings and the list of added folders. Your documents are never touched.</p>
      <Button variant="danger" onClick={() => setOpen(true)}>
        Clear all data…
      </Button>
      {message && <p role="status">{message}</p>}
      <Dialog title="Clear all data?" open={open} onClose={() => setOpen(false)}>
        <p>This cannot be undone. Chunk files you edited stay in each folder's _chunks unless you tick them below.</p>
        <label className="inline">
          <input type="checkbox" checked={also.models} onChange={(event) => setAlso({ ...also, models: event.target.checked })} /> Also the downloaded models
        </label>
        <label className="inline">
          <input type="checkbox" checked={also.keys} onChange={(event) => setAlso({ ...also, keys: event.target.checked })} /> Also the stored API keys
        </label>
        <label className="inline">
          <input type="checkbox" checked={also.chunkFiles} onChange={(event) => setAlso({ ...also, chunkFiles: event.target.checked })} /> Also every folder's _chunks (hand edits included)
        </label>
        <label htmlFor="clear-confirm">Type "{CONFIRMATION}" to confirm</label>
        <input id="clear-confirm" value={typed} onChange={(event) => setTyped(event.target.value)} autoComplete="off" />
        <div className="dialog-actions">
          <Button onClick={() => setOpen(false)}>Keep my data</Button>
          <Button variant="danger" disabled={typed.trim() !== CONFIRMATION} onClick={clear}>
            Delete everything
          </Button>
        </div>
      </Dialog>
    </Card>
  );
}

interface SettingRow {
  key: string;
  value: string | number | null;
  source: string;
  problem: string | null;
  description: string;
  kind: { type: string; values?: string[]; min?: number; max?: number };
}

/** The settings worth changing from the app; `chunkpad config list` has them all. */
const EDITABLE = [
  "embedding.model", "embedding.dtype", "chunking.chunkSizeTokens", "chunking.chunkOverlapTokens", "search.fusion", "search.minScore", "search.perDocument",
  "search.rerank", "generation.provider", "generation.mode", "generation.minSimilarity", "generation.minVectorSimilarity",
];

function SettingsCard() {
  const [rows, setRows] = useState<SettingRow[] | null>(null);
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const load = useCallback(() => {
    void get<{ settings: SettingRow[] }>("/api/settings").then((answer) => setRows(answer.settings.filter((row) => EDITABLE.includes(row.key))));
  }, []);
  useEffect(load, [load]);
  const save = (key: string) => {
    put<SettingRow>(`/api/settings/${encodeURIComponent(key)}`, { value: drafts[key] ?? "" }).then(
      (row) => {
        setMessage(`${row.key} is now ${String(row.value)}.`);
        load();
      },
      (failure: Error) => setMessage(failure.message),
    );
  };
  return (
    <Card label="Settings">
      <h2>Settings</h2>
      <p className="meta">Written to the config file, as "chunkpad config set" does. A changed chunk size applies the next time a folder is processed; a changed embedding model needs the chunks embedded again.</p>
      {rows?.map((row) => {
        const id = `setting-${row.key.replace(/\W+/g, "-")}`;
        const value = drafts[row.key] ?? (row.value === null ? "" : String(row.value));
        return (
          <form
            key={row.key}
            className="setting"
            onSubmit={(event) => {
              event.preventDefault();
              save(row.key);
            }}
          >
            <label htmlFor={id}>
              {row.key} <Pill>{row.source}</Pill>
            </label>
            {row.kind.type === "enum" ? (
              <select id={id} value={value} onChange={(event) => setDrafts({ ...drafts, [row.key]: event.target.value })}>
                {row.value === null && <option value="">(not set)</option>}
                {row.kind.values?.map((option) => (
                  <option key={option} value={option}>
                    {option}
                  </option>
                ))}
              </select>
            ) : (
              <input id={id} value={value} onChange={(event) => setDrafts({ ...drafts, [row.key]: event.target.value })} />
            )}
            <p className="meta">{row.description}</p>
            {row.problem && <p role="alert">{row.problem}</p>}
            <Button type="submit">Save {row.key}</Button>
          </form>
        );
      })}
      {message && <p role="status">{message}</p>}
    </Card>
  );
}

/** The local answer model downloaded ahead of a question: consent (with the size), progress, cancel. */
function LocalModelDownload({ sizeBytes, model, onDone }: { sizeBytes: number; model: string; onDone: (message: string) => void }) {
  const [asking, setAsking] = useState(false);
  const [running, setRunning] = useState<{ id: string; percent: number } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const download = async () => {
    setAsking(false);
    setMessage(null);
    try {
      const started = await post<Job>("/api/jobs", { kind: "local-model", consent: true });
      setRunning({ id: started.id, percent: 0 });
      followJob(started, (event) => {
        if (event.type === "download-progress") setRunning({ id: started.id, percent: Number(event.data.percent ?? 0) });
        if (event.type === "job-done" || event.type === "job-failed" || event.type === "job-cancelled") {
          setRunning(null);
          const error = (event.data.error as { message?: string } | undefined)?.message;
          // Said by the card: once downloaded, this offer is gone.
          onDone(event.type === "job-done" ? `${model} is downloaded.` : event.type === "job-cancelled" ? "Download cancelled." : `Download failed: ${error ?? "unknown error"}`);
        }
      });
    } catch (failure) {
      setMessage((failure as Error).message);
    }
  };
  return (
    <>
      {running ? (
        <div className="job">
          <ProgressBar value={running.percent} label={`Downloading ${model}`} />
          <Button onClick={() => void remove(`/api/jobs/${running.id}`)}>Cancel the download</Button>
        </div>
      ) : (
        <Button onClick={() => setAsking(true)}>Download the local model…</Button>
      )}
      {message && <p role="status">{message}</p>}
      <Dialog title="Download the local model?" open={asking} onClose={() => setAsking(false)}>
        <p>
          {model}: about {Math.round(sizeBytes / 1_000_000)} MB, downloaded once into Chunkpad's model cache. Answers then run on this computer; nothing leaves it.
        </p>
        <div className="dialog-actions">
          <Button onClick={() => setAsking(false)}>Not now</Button>
          <Button variant="primary" onClick={() => void download()}>
            Download
          </Button>
        </div>
      </Dialog>
    </>
  );
}

/** Answer providers and API keys: a key can be set or replaced, never read back. */
function ProvidersCard() {
  const [state, setState] = useState<{ providers: Provider[]; keys: KeyDescription[] } | null>(null);
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const load = useCallback(() => {
    void get<{ providers: Provider[]; keys: KeyDescription[] }>("/api/providers").then(setState);
  }, []);
  useEffect(load, [load]);
  return (
    <Card label="Answer providers">
      <h2>Answer providers</h2>
      <ul className="providers">
        {state?.providers.map((provider) => (
          <li key={provider.provider}>
            <strong>{provider.provider}</strong> ({provider.model}) {provider.selected && <Pill>selected</Pill>} <Pill tone={provider.ready ? "good" : "warn"}>{provider.ready ? "ready" : "not ready"}</Pill>
            <p className="meta">{provider.detail}</p>
            {provider.provider === "local" && !provider.ready && provider.downloadBytes !== undefined && <LocalModelDownload
                sizeBytes={provider.downloadBytes}
                model={provider.model}
                onDone={(said) => {
                  setMessage(said);
                  load();
                }}
              />}
            {provider.installedModels && provider.installedModels.length > 0 && (
              <p className="meta" aria-label={`Models installed in ${provider.provider}`}>
                Installed: {provider.installedModels.join(", ")}
              </p>
            )}
          </li>
        ))}
      </ul>
      {state?.keys.map((key) => (
        <form
          key={key.provider}
          className="key-form"
          onSubmit={(event) => {
            event.preventDefault();
            const value = drafts[key.provider] ?? "";
            post<KeyDescription>("/api/keys", { provider: key.provider, key: value }).then(
              (stored) => {
                setDrafts({ ...drafts, [key.provider]: "" });
                setMessage(`The ${stored.provider} key is stored (${stored.location}).`);
                load();
              },
              (failure: Error) => setMessage(failure.message),
            );
          }}
        >
          <label htmlFor={`key-${key.provider}`}>
            {key.provider} API key {key.source ? `(set: ${key.location})` : "(not set)"}
          </label>
          <input id={`key-${key.provider}`} type="password" autoComplete="off" value={drafts[key.provider] ?? ""} onChange={(event) => setDrafts({ ...drafts, [key.provider]: event.target.value })} />
          <Button type="submit">Save {key.provider} key</Button>
        </form>
      ))}
      {message && <p role="status">{message}</p>}
    </Card>
  );
}

function ChunkPanel({ chunkRef, onClose }: { chunkRef: string; onClose: () => void }) {
  const [view, setView] = useState<ChunkView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setView(null);
    get<ChunkView>(`/api/chunks/${encodeURIComponent(chunkRef)}`).then(setView, (failure: Error) => setError(failure.message));
  }, [chunkRef]);
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => event.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
  return (
    <aside className="panel" aria-label="Cited chunk">
      <div className="toolbar">
        <h2>{view ? view.chunk.relativePath : "Chunk"}</h2>
        <IconButton onClick={onClose} label="Close the chunk panel" icon="✕" />
      </div>
      {error && <p role="alert">{error}</p>}
      {view && (
        <>
          <p className="meta">
            {view.chunk.documentTitle}
            {view.chunk.location ? ` · ${view.chunk.location}` : ""}
            {view.chunk.section ? ` · ${view.chunk.section}` : ""}
          </p>
          <p className="chunk-text">{view.chunk.text}</p>
          {view.chunk.relativePath.toLowerCase().endsWith(".pdf") && view.chunk.page !== null && (
            <Suspense fallback={<p>Loading the page…</p>}>
              <PdfPage documentId={view.chunk.documentId} page={view.chunk.page} chunkText={view.chunk.text} label={`Page ${view.chunk.page} of ${view.chunk.relativePath}, the cited text highlighted`} />
            </Suspense>
          )}
        </>
      )}
    </aside>
  );
}
