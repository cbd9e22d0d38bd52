import { Command as CommandIcon, HelpCircle, Menu } from "lucide-react";
import { lazy, Suspense, useCallback, useMemo, useState } from "react";
import { Group, Panel, Separator } from "react-resizable-panels";
import * as RadixDialog from "@radix-ui/react-dialog";
import { IconButton } from "./components/Button.js";
import { Inspector } from "./components/Inspector.js";
import { Skeleton } from "./components/Skeleton.js";
import { useChat } from "./hooks/useChat.js";
import { useFolders } from "./hooks/queries.js";
import { useMediaQuery } from "./hooks/useMediaQuery.js";
import { useShortcuts, type Shortcut } from "./hooks/useShortcuts.js";
import { useTheme } from "./hooks/useTheme.js";
import { AppSidebar } from "./views/AppSidebar.js";
import { ChatView } from "./views/ChatView.js";
import { ChunkInspector, type InspectorTarget } from "./views/ChunkInspector.js";
import { CommandPalette, type PaletteCommand } from "./views/CommandPalette.js";
import { DocumentsView } from "./views/DocumentsView.js";
import { HelpOverlay } from "./views/HelpOverlay.js";
import { SearchView } from "./views/SearchView.js";
import { MOD, MOD_ARIA, VIEWS, type View } from "./nav.js";

// Settings is the largest view and the least visited: loaded when first opened.
const SettingsView = lazy(async () => ({ default: (await import("./views/SettingsView.js")).SettingsView }));

/** The app's frame: title bar, sidebar, the view, and the inspector; a drawer and overlays on small screens. */
export function App() {
  const [view, setView] = useState<View>("documents");
  const [theme, setTheme] = useTheme();
  const [inspector, setInspector] = useState<InspectorTarget | null>(null);
  const [folderId, setFolderId] = useState<string | null>(null);
  const [file, setFile] = useState<string | null>(null);
  const [paletteOpen, setPaletteOpen] = useState(false);
  const [helpOpen, setHelpOpen] = useState(false);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [addFolderOpen, setAddFolderOpen] = useState(false);
  const narrow = useMediaQuery("(max-width: 760px)");
  const medium = useMediaQuery("(max-width: 1100px)");
  const folders = useFolders();
  const chat = useChat();
  const folder = folders.data?.find((candidate) => candidate.id === folderId) ?? folders.data?.[0] ?? null;
  const closeInspector = useCallback(() => setInspector(null), []);
  const go = useCallback((next: View) => {
    setView(next);
    setDrawerOpen(false);
  }, []);
  const openChunk = useCallback((target: InspectorTarget) => setInspector(target), []);

  const commands: PaletteCommand[] = useMemo(
    () => [
      ...VIEWS.map((entry) => ({ id: `go-${entry.id}`, group: "Go to", label: entry.label, shortcut: entry.shortcut, run: () => go(entry.id) })),
      { id: "add-folder", group: "Documents", label: "Add a folder…", run: () => (go("documents"), setAddFolderOpen(true)) },
      { id: "new-chat", group: "Chat", label: "New conversation", run: () => (chat.reset(), go("chat")) },
      { id: "search-focus", group: "Search", label: "Search the documents", shortcut: "/", run: () => (go("search"), setTimeout(() => document.getElementById("search-query")?.focus(), 0)) },
      ...(["light", "dark", "contrast", "system"] as const).map((id) => ({ id: `theme-${id}`, group: "Appearance", label: `Theme: ${id === "contrast" ? "high contrast" : id === "system" ? "as the system" : id}`, run: () => setTheme(id) })),
      { id: "help", group: "Help", label: "Keyboard shortcuts", shortcut: "?", run: () => setHelpOpen(true) },
      ...(folders.data ?? []).map((entry) => ({ id: `folder-${entry.id}`, group: "Folders", label: `Open ${entry.rootPath}`, run: () => (setFolderId(entry.id), setFile(null), go("documents")) })),
    ],
    [chat, folders.data, go, setTheme],
  );
  const shortcuts: Shortcut[] = [
    { keys: `${MOD}+K`, description: "Command palette: every action by name", inFields: true, matches: (event) => (event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k", run: () => setPaletteOpen((open) => !open) },
    ...VIEWS.map((entry, index) => ({ keys: entry.shortcut, description: `Go to ${entry.label}`, inFields: true, matches: (event: KeyboardEvent) => event.altKey && event.code === `Digit${index + 1}`, run: () => go(entry.id) })),
    { keys: "/", description: "Search the documents", matches: (event) => event.key === "/", run: () => (go("search"), setTimeout(() => document.getElementById("search-query")?.focus(), 0)) },
    { keys: "?", description: "This list of shortcuts", matches: (event) => event.key === "?", run: () => setHelpOpen(true) },
    { keys: "Esc", description: "Close the inspector, a dialog or the palette", matches: () => false, run: () => undefined },
    { keys: "Enter / Shift+Enter", description: "In the question box: send / new line", matches: () => false, run: () => undefined },
    { keys: "↑ ↓ ← → Home End", description: "Move in the chunk-file tree; Enter opens a file", matches: () => false, run: () => undefined },
  ];
  useShortcuts(shortcuts);

  const sidebar = (
    <AppSidebar
      view={view}
      onView={go}
      folders={folders.data ?? null}
      folder={folder}
      onFolder={(id) => {
        setFolderId(id);
        setFile(null);
        go("documents");
      }}
      file={file}
      onFile={(path) => {
        setFile(path);
        go("documents");
      }}
      chat={chat}
      onAddFolder={() => {
        go("documents");
        setAddFolderOpen(true);
      }}
    />
  );
  // A view keeps its state (the search, the draft question) while another is shown, as in a desktop app.
  const [visited, setVisited] = useState<ReadonlySet<View>>(() => new Set([view]));
  if (!visited.has(view)) setVisited(new Set([...visited, view]));
  const main = (
    <main className="main" id="main">
      <div className="view-slot" hidden={view !== "documents"}>
        <DocumentsView folders={folders.data ?? null} folder={folder} file={file} onFile={setFile} addFolderOpen={addFolderOpen} onAddFolderOpen={setAddFolderOpen} onOpenChunk={openChunk} />
      </div>
      {visited.has("search") && (
        <div className="view-slot" hidden={view !== "search"}>
          <SearchView folders={folders.data ?? []} onOpen={openChunk} />
        </div>
      )}
      {visited.has("chat") && (
        <div className="view-slot" hidden={view !== "chat"}>
          <ChatView chat={chat} hasFolders={(folders.data?.length ?? 0) > 0} onOpen={openChunk} onSettings={() => go("settings")} />
        </div>
      )}
      {visited.has("settings") && (
        <div className="view-slot" hidden={view !== "settings"}>
          <Suspense fallback={<Skeleton lines={6} label="Loading the settings" />}>
            <SettingsView theme={theme} onTheme={setTheme} onFolderRemoved={() => setFolderId(null)} />
          </Suspense>
        </div>
      )}
    </main>
  );
  const inspectorPane = inspector && (
    <Inspector title="Chunk" onClose={closeInspector} overlay={medium}>
      <ChunkInspector target={inspector} />
    </Inspector>
  );

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to the content
      </a>
      <header className="titlebar">
        {narrow && <IconButton label="Open the sidebar" icon={Menu} onClick={() => setDrawerOpen(true)} />}
        <span className="brand">
          <img src="/assets/icon.svg" alt="" width={22} height={22} />
          <span>Chunkpad</span>
        </span>
        <button type="button" className="palette-button" onClick={() => setPaletteOpen(true)} aria-keyshortcuts={`${MOD_ARIA}+K`}>
          <CommandIcon aria-hidden="true" size={14} />
          <span className="palette-button-text">Search or run a command…</span>
          <kbd>{MOD} K</kbd>
        </button>
        <IconButton label="Keyboard shortcuts" icon={HelpCircle} onClick={() => setHelpOpen(true)} />
      </header>
      {/* One tree at every width, so the views keep their state when the window narrows. */}
      <Group className="workspace" orientation="horizontal">
        {!narrow && (
          <Panel key="sidebar" id="sidebar" defaultSize="280px" minSize="220px" maxSize="480px" className="sidebar-panel">
            {sidebar}
          </Panel>
        )}
        {!narrow && <Separator key="sidebar-separator" className="separator" aria-label="Resize the sidebar" />}
        <Panel key="main" id="main" minSize="300px" className="main-panel">
          {main}
        </Panel>
        {inspectorPane && !medium && <Separator key="inspector-separator" className="separator" aria-label="Resize the inspector" />}
        {inspectorPane && !medium && (
          <Panel key="inspector" id="inspector" defaultSize="420px" minSize="300px" maxSize="720px" className="inspector-panel">
            {inspectorPane}
          </Panel>
        )}
      </Group>
      {narrow && (
        <RadixDialog.Root open={drawerOpen} onOpenChange={setDrawerOpen}>
          <RadixDialog.Portal>
            <RadixDialog.Overlay className="dialog-overlay" />
            <RadixDialog.Content className="drawer" aria-describedby={undefined}>
              <RadixDialog.Title className="visually-hidden">Sidebar</RadixDialog.Title>
              {sidebar}
            </RadixDialog.Content>
          </RadixDialog.Portal>
        </RadixDialog.Root>
      )}
      {medium && inspectorPane}
      <CommandPalette open={paletteOpen} onClose={() => setPaletteOpen(false)} commands={commands} />
      <HelpOverlay open={helpOpen} onClose={() => setHelpOpen(false)} shortcuts={shortcuts} />
    </div>
  );
}
