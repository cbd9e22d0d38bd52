import { AlertTriangle, RotateCcw, User } from "lucide-react";
import { Button } from "../components/Button.js";
import { Dialog, DialogActions } from "../components/Dialog.js";
import { Markdown } from "../components/Markdown.js";
import { Pill } from "../components/Pill.js";
import { ProgressBar } from "../components/ProgressBar.js";
import type { Turn, useChat } from "../hooks/useChat.js";
import type { InspectorTarget } from "./ChunkInspector.js";
import { Sources } from "./Sources.js";

/** One question and its answer: Markdown with citations as chips, the sources below, Regenerate. */
export function ChatTurn({ turn, index, last, chat, onOpen }: { turn: Turn; index: number; last: boolean; chat: ReturnType<typeof useChat>; onOpen: (target: InspectorTarget) => void }) {
  const invalid = new Set(turn.invalidCitations);
  const citation = (label: string) => {
    const ref = turn.labels?.find((entry) => entry.label === label)?.ref;
    if (ref) {
      return (
        <button type="button" className="citation" aria-label={`Open citation ${label}`} onClick={() => onOpen({ ref, via: `${label} in the answer` })}>
          {label}
        </button>
      );
    }
    if (invalid.has(label) || (turn.done && turn.labels !== null)) {
      return (
        <mark className="citation citation-invalid" title={`The answer cites ${label}, but it was given no source with that label.`}>
          {label}
          <AlertTriangle aria-hidden="true" size={12} />
        </mark>
      );
    }
    // Streaming: which chunk a label names is known when the answer is complete.
    return <span className="citation citation-pending">{label}</span>;
  };
  return (
    <article className="turn" aria-label={`Question ${index + 1}`}>
      <div className="message message-user">
        <span className="avatar" aria-hidden="true">
          <User size={14} />
        </span>
        <p className="question">{turn.question}</p>
      </div>
      <div className="message message-assistant">
        <div className="answer" aria-live={last ? "polite" : undefined} aria-busy={!turn.done}>
          {turn.answer === "" && !turn.done && !turn.error && <p className="typing" aria-label="Answering">Searching and answering…</p>}
          <Markdown text={turn.answer} citation={citation} />
          {turn.stopped && <Pill tone="warn">stopped</Pill>}
        </div>
        {turn.invalidCitations.length > 0 && (
          <p className="notice notice-warn" role="note">
            <AlertTriangle aria-hidden="true" size={14} /> This answer cites {turn.invalidCitations.join(", ")}, which {turn.invalidCitations.length === 1 ? "is" : "are"} not among its sources: the model invented {turn.invalidCitations.length === 1 ? "that citation" : "those citations"}. Check the statement{turn.invalidCitations.length === 1 ? "" : "s"} before relying on {turn.invalidCitations.length === 1 ? "it" : "them"}.
          </p>
        )}
        {turn.download !== null && <ProgressBar value={turn.download} label="Downloading the local model" />}
        {turn.error && <p role="alert" className="notice notice-bad">{turn.error}</p>}
        {turn.sources.length > 0 && <Sources turn={turn} editable={last && turn.done} onToggle={chat.toggle} onOpen={onOpen} />}
        {last && turn.done && chat.conversationId && turn.sources.length > 0 && (
          <div className="button-row">
            <Button size="sm" icon={RotateCcw} onClick={() => void chat.regenerate()}>
              Regenerate with the sources switched on
            </Button>
          </div>
        )}
      </div>
      {last && turn.errorCode === "MODEL_CONSENT_REQUIRED" && (
        <Dialog title="Download the local model?" open onClose={chat.dismissConsent}>
          <p>{turn.error}</p>
          <p>It is downloaded once into Chunkpad's model cache; answers then run on this computer.</p>
          <DialogActions>
            <Button onClick={chat.dismissConsent}>Not now</Button>
            <Button variant="primary" onClick={() => void chat.askWithDownload(chat.lastOptions.current)}>
              Download and answer
            </Button>
          </DialogActions>
        </Dialog>
      )}
    </article>
  );
}
