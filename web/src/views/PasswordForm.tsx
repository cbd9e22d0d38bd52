import { LockKeyhole } from "lucide-react";
import { useState } from "react";
import { Button } from "../components/Button.js";

/** The password of an encrypted document: the folder is processed again with it (it is never stored). */
export function PasswordForm({ file, onSubmit }: { file: string; onSubmit: (password: string) => void }) {
  const [password, setPassword] = useState("");
  const id = `password-${file.replace(/\W+/g, "-")}`;
  return (
    <form
      className="key-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (password === "") return;
        onSubmit(password);
        setPassword("");
      }}
    >
      <label htmlFor={id} className="field-label">
        Password for {file}
      </label>
      <div className="input-row">
        <input id={id} type="password" autoComplete="off" value={password} onChange={(event) => setPassword(event.target.value)} />
        <Button type="submit" variant="primary" icon={LockKeyhole} disabled={password === ""}>
          Open with this password
        </Button>
      </div>
      <p className="meta">Used for this run only and never stored; other encrypted files that take the same password open too.</p>
    </form>
  );
}
