import { ArrowUp, Pin, ShieldCheck, Square } from "lucide-react";
import { useState, type KeyboardEvent } from "react";
import type { Provider } from "../api/types.js";
import { Button } from "../components/Button.js";
import type { useChat } from "../hooks/useChat.js";

/** The question box at the bottom of the chat, with the answer's options in one compact row. */
export function Composer({ chat, providers, disabled }: { chat: ReturnType<typeof useChat>; providers: Provider[]; disabled: boolean }) {
  const [question, setQuestion] = useState("");
  const [provider, setProvider] = useState("");
  const [model, setModel] = useState("");
  const [strict, setStrict] = useState(false);
  const [pin, setPin] = useState("");
  const chosen = providers.find((entry) => (provider ? entry.provider === provider : entry.selected));
  const send = () => {
    if (question.trim() === "" || chat.busy) return;
    void chat.send(question, { provider, model, strict, pins: pin.trim() ? [pin.trim()] : [] });
    setQuestion("");
  };
  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };
  return (
    <form
      className="composer"
      aria-label="Ask"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <div className="composer-box">
        <label htmlFor="question" className="visually-hidden">
          Question
        </label>
        <textarea id="question" rows={2} value={question} disabled={disabled} onChange={(event) => setQuestion(event.target.value)} onKeyDown={onKey} placeholder="Ask about your documents — Enter sends, Shift+Enter adds a line" />
        {chat.busy ? (
          <Button variant="danger" icon={Square} onClick={() => void chat.stop()}>
            Stop
          </Button>
        ) : (
          <Button type="submit" variant="primary" icon={ArrowUp} disabled={disabled || question.trim() === ""}>
            Ask
          </Button>
        )}
      </div>
      <div className="composer-options">
        <select
          aria-label="Answered by"
          className="compact-select"
          value={provider}
          onChange={(event) => {
            setProvider(event.target.value);
            setModel("");
          }}
        >
          <option value="">{chosen && !provider ? `${chosen.provider} (configured)` : "The configured provider"}</option>
          {providers.map((entry) => (
            <option key={entry.provider} value={entry.provider} disabled={!entry.ready && entry.provider !== "local"}>
              {entry.provider}
              {entry.ready ? "" : ", not ready"}
            </option>
          ))}
        </select>
        <input aria-label="Model" className="compact-input" list="answer-models" value={model} onChange={(event) => setModel(event.target.value)} placeholder={chosen?.model ?? "model"} />
        <datalist id="answer-models">
          {[...new Set([chosen?.model, ...(chosen?.installedModels ?? [])].filter((name): name is string => Boolean(name)))].map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
        <span className="compact-field">
          <Pin aria-hidden="true" size={14} />
          <input aria-label="Pin a document (its chunks come first)" className="compact-input" value={pin} onChange={(event) => setPin(event.target.value)} placeholder="Pin a document" />
        </span>
        <label className="toggle-chip" title="Answer only with sentences taken from the chunks">
          <input type="checkbox" checked={strict} onChange={(event) => setStrict(event.target.checked)} />
          <ShieldCheck aria-hidden="true" size={14} />
          <span>Strict</span>
        </label>
      </div>
    </form>
  );
}
