/**
 * kube-apiserver's max-in-flight filter (`--max-requests-inflight`,
 * `--max-mutating-requests-inflight`): at most so many read-only and so many mutating
 * requests at once; one more is answered 429 with `Retry-After: 1` at once rather than
 * queued. Long-running requests (watches, followed logs, proxies) are not counted, and
 * `system:masters` is never limited, as kube-apiserver's filter does.
 */
import type { UserInfo } from "./context.ts";

export interface InflightLimits {
  /** Read-only requests at once (0: no limit). kube-apiserver's default is 400. */
  readOnly: number;
  /** Mutating requests at once (0: no limit). kube-apiserver's default is 200. */
  mutating: number;
}

export const DEFAULT_INFLIGHT_LIMITS: InflightLimits = { readOnly: 400, mutating: 200 };

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const TRUE = new Set(["1", "t", "T", "true", "TRUE", "True"]);

/** kube-apiserver's long-running check: watches, followed logs, proxy/exec/attach/portforward. */
export function isLongRunning(method: string, url: URL): boolean {
  if (TRUE.has(url.searchParams.get("watch") ?? "")) return true;
  const segments = url.pathname.split("/");
  if (segments.includes("watch")) return true;
  if (segments.some((s) => s === "proxy" || s === "exec" || s === "attach" || s === "portforward"))
    return true;
  return method === "GET" && segments.at(-1) === "log" && TRUE.has(url.searchParams.get("follow") ?? "");
}

export class InflightLimiter {
  #limits: InflightLimits;
  #readOnly = 0;
  #mutating = 0;

  constructor(limits: InflightLimits) {
    this.#limits = limits;
  }

  /**
   * Takes a slot for the request; returns the function that gives it back (call it once, when
   * the response ends), or undefined when the limit is reached (answer 429).
   */
  admit(method: string, url: URL, user: UserInfo): (() => void) | undefined {
    if (user.groups.includes("system:masters") || isLongRunning(method, url)) return () => {};
    const mutating = MUTATING.has(method);
    const limit = mutating ? this.#limits.mutating : this.#limits.readOnly;
    if (limit <= 0) return () => {};
    if ((mutating ? this.#mutating : this.#readOnly) >= limit) return undefined;
    if (mutating) this.#mutating++;
    else this.#readOnly++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (mutating) this.#mutating--;
      else this.#readOnly--;
    };
  }

  /** Requests holding a slot now (tests and metrics). */
  get inFlight(): { readOnly: number; mutating: number } {
    return { readOnly: this.#readOnly, mutating: this.#mutating };
  }
}
