/**
 * kube-apiserver's max-in-flight filter (`--max-requests-inflight`,
 * `--max-mutating-requests-inflight`): at most so many read-only and so many mutating
 * requests at once; one more is answered 429 with `Retry-After: 1` at once rather than
 * queued. Long-running requests (watches, logs, exec/attach/portforward, proxies) are not
 * limited but counted apart, and `system:masters` is never limited, as kube-apiserver's filter
 * does.
 *
 * A slot is taken once the request's headers are read and its sender authenticated, and given
 * back when its response has ended and its handler has finished (http.ts): the time its body
 * takes to arrive counts, and so does a handler still running after its 504 (as in
 * kube-apiserver, where the timed-out handler keeps the slot until it returns).
 */
import type { UserInfo } from "./context.ts";
import { type RequestInfo, requestInfo } from "./request-info.ts";

export interface InflightLimits {
  /** Read-only requests at once (0: no limit). kube-apiserver's default is 400. */
  readOnly: number;
  /** Mutating requests at once (0: no limit). kube-apiserver's default is 200. */
  mutating: number;
}

export const DEFAULT_INFLIGHT_LIMITS: InflightLimits = { readOnly: 400, mutating: 200 };

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** Subresources kube-apiserver serves as long-running (its `BasicLongRunningRequestCheck`). */
const LONG_RUNNING_SUBRESOURCES = new Set(["attach", "exec", "proxy", "log", "portforward"]);

/**
 * kube-apiserver's long-running check: the watch verb (`?watch=true`, `/watch/` paths), and the
 * attach, exec, proxy, log and portforward subresources (also Karmada's `clusters/<n>/proxy` and
 * karmada-search's `proxying/<n>/proxy`), whatever the method and `follow` say.
 */
export function isLongRunningRequest(info: RequestInfo): boolean {
  if (info.kind !== "resource") return false;
  if (info.verb === "watch") return true;
  const sub = info.subresource?.split("/")[0];
  return sub !== undefined && LONG_RUNNING_SUBRESOURCES.has(sub);
}

/** `isLongRunningRequest` of a method and URL. */
export function isLongRunning(method: string, url: URL): boolean {
  return isLongRunningRequest(requestInfo(method, url.pathname, url.searchParams));
}

export class InflightLimiter {
  #limits: InflightLimits;
  #readOnly = 0;
  #mutating = 0;
  #longRunning = 0;

  constructor(limits: InflightLimits) {
    this.#limits = limits;
  }

  /**
   * Takes a slot for the request; returns the function that gives it back (call it once, when
   * the response ends), or undefined when the limit is reached (answer 429).
   */
  admit(method: string, url: URL, user: UserInfo, info?: RequestInfo): (() => void) | undefined {
    if (info ? isLongRunningRequest(info) : isLongRunning(method, url)) {
      this.#longRunning++;
      return once(() => this.#longRunning--);
    }
    if (user.groups.includes("system:masters")) return () => {};
    const mutating = MUTATING.has(method);
    const limit = mutating ? this.#limits.mutating : this.#limits.readOnly;
    if (limit <= 0) return () => {};
    if ((mutating ? this.#mutating : this.#readOnly) >= limit) return undefined;
    if (mutating) this.#mutating++;
    else this.#readOnly++;
    return once(() => {
      if (mutating) this.#mutating--;
      else this.#readOnly--;
    });
  }

  /** Requests holding a slot now, and long-running requests under way (tests and metrics). */
  get inFlight(): InflightCounts {
    return { readOnly: this.#readOnly, mutating: this.#mutating, longRunning: this.#longRunning };
  }
}

export interface InflightCounts {
  readOnly: number;
  mutating: number;
  longRunning: number;
}

/** `give` the first time the returned function is called; nothing after. */
function once(give: () => void): () => void {
  let given = false;
  return () => {
    if (given) return;
    given = true;
    give();
  };
}
