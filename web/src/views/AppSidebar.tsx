import { FolderOpen, MessageSquarePlus, Plus } from "lucide-react";
import { VIEWS, type View } from "../nav.js";
import type { Folder } from "../api/types.js";
import { IconButton } from "../components/Button.js";
import { Pill } from "../components/Pill.js";
import { NavItem, SidebarSection } from "../components/Sidebar.js";
import { useConversations } from "../hooks/queries.js";
import type { useChat } from "../hooks/useChat.js";
import { FolderTree } from "./FolderTree.js";
import { elsewhereReason } from "./folder-elsewhere.js";

const baseName = (path: string) => path.replace(/[\\/]+$/, "").split(/[\\/]/).at(-1) ?? path;

/** The sidebar: the views, the folders with the chosen one's chunk-file tree, the conversations. */
export function AppSidebar({ view, onView, folders, folder, onFolder, file, onFile, chat, onAddFolder }: {
  view: View; onView: (view: View) => void; folders: Folder[] | null; folder: Folder | null; onFolder: (id: string) => void;
  file: string | null; onFile: (path: string) => void; chat: ReturnType<typeof useChat>; onAddFolder: () => void;
}) {
  const conversations = useConversations();
  return (
    <div className="sidebar">
      <nav aria-label="Views">
        <ul className="nav-list">
          {VIEWS.map((entry) => (
            <NavItem key={entry.id} icon={entry.icon} label={entry.label} shortcut={entry.shortcut} current={view === entry.id} onClick={() => onView(entry.id)} />
          ))}
        </ul>
      </nav>
      <SidebarSection title="Folders" actions={<IconButton label="Add a folder" icon={Plus} onClick={onAddFolder} />}>
        {folders !== null && folders.length === 0 && <p className="sidebar-note">Added folders appear here.</p>}
        <ul className="folder-list" aria-label="Added folders">
          {folders?.map((entry) => (
            <li key={entry.id}>
              <button type="button" className="folder-row" aria-current={entry.id === folder?.id ? "true" : undefined} onClick={() => onFolder(entry.id)} title={entry.rootPath}>
                <FolderOpen aria-hidden="true" size={16} className="folder-row-icon" />
                <span className="folder-row-name">{baseName(entry.rootPath)}</span>
                <Pill tone={entry.includedChunkCount > 0 && entry.embeddedChunkCount >= entry.includedChunkCount ? "good" : "neutral"} title={`${entry.embeddedChunkCount} of ${entry.includedChunkCount} included chunks embedded`}>
                  {entry.embeddedChunkCount}/{entry.includedChunkCount}
                </Pill>
                {entry.ownedElsewhere && entry.owner && (
                  <Pill title={elsewhereReason(entry) ?? undefined}>on {entry.owner.name}</Pill>
                )}
              </button>
            </li>
          ))}
        </ul>
        {folder && <FolderTree folderId={folder.id} selected={file} onSelect={onFile} />}
      </SidebarSection>
      <SidebarSection title="Conversations" actions={<IconButton label="New conversation" icon={MessageSquarePlus} onClick={() => (chat.reset(), onView("chat"))} />}>
        {conversations.error && <p role="alert" className="sidebar-note">{conversations.error.message}</p>}
        {conversations.data?.length === 0 && <p className="sidebar-note">No conversation yet.</p>}
        <ul className="conversation-list" aria-label="Recent conversations">
          {conversations.data?.slice(0, 50).map((conversation) => (
            <li key={conversation.id}>
              <button
                type="button"
                className="conversation-row"
                aria-current={conversation.id === chat.conversationId ? "true" : undefined}
                onClick={() => {
                  void chat.open(conversation.id);
                  onView("chat");
                }}
              >
                <span className="conversation-title">{conversation.title}</span>
                <span className="conversation-count">{conversation.messageCount} messages</span>
              </button>
            </li>
          ))}
        </ul>
      </SidebarSection>
    </div>
  );
}
