/** Sign-in with a bearer token (dashboards not bound to loopback): kept in this tab's sessionStorage only. */
import { useState } from "preact/hooks";
import type { WhoAmI } from "../../wire.ts";
import { ApiFailure, storeToken, whoAmI } from "../api.ts";

export function SignInPage({ reason, onSignedIn }: { reason?: string; onSignedIn: (who: WhoAmI) => void }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (): Promise<void> => {
    const t = token.trim();
    if (!t) {
      setError("Paste a token first.");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const who = await whoAmI(t);
      storeToken(t);
      onSignedIn(who);
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="signin">
      <form
        class="card signin-card"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <h1>Sign in to the Karmada dashboard</h1>
        <p>
          The dashboard shows what your token may read, nothing more: it passes your token to the control
          plane and uses no credentials of its own.
        </p>
        {reason && !error && <p class="note tone-warn">{reason}</p>}
        <label class="block">
          Bearer token
          <textarea
            name="token"
            rows={4}
            autoComplete="off"
            spellcheck={false}
            value={token}
            onInput={(e) => setToken((e.target as HTMLTextAreaElement).value)}
          />
        </label>
        {error && (
          <p class="note tone-bad" role="alert">
            {error}
          </p>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? "Checking…" : "Sign in"}
          </button>
        </div>
        <p class="muted small">
          A service account's token: <code>kubectl create token &lt;name&gt; -n &lt;namespace&gt;</code>. It
          is kept in this browser tab only and forgotten when the tab closes.
        </p>
      </form>
    </div>
  );
}
