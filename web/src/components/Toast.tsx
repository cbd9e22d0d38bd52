import { X } from "lucide-react";
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";
import { IconButton } from "./Button.js";

export type ToastTone = "info" | "good" | "bad";
interface Toast {
  id: number;
  tone: ToastTone;
  text: string;
}

const ToastContext = createContext<(text: string, tone?: ToastTone) => void>(() => undefined);

/** Says what happened: successes as status, failures as alerts; each stays until closed or replaced. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const push = useCallback((text: string, tone: ToastTone = "info") => {
    setToasts((all) => [...all.filter((toast) => toast.text !== text).slice(-3), { id: Date.now() + Math.random(), tone, text }]);
  }, []);
  const value = useMemo(() => push, [push]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts" aria-label="Notifications">
        {toasts.map((toast) => (
          <div key={toast.id} className={`toast toast-${toast.tone}`} role={toast.tone === "bad" ? "alert" : "status"}>
            <span>{toast.text}</span>
            <IconButton label="Dismiss" icon={X} onClick={() => setToasts((all) => all.filter((other) => other.id !== toast.id))} />
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export const useToast = () => useContext(ToastContext);
