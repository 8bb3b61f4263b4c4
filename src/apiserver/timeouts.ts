/**
 * kube-apiserver's request deadline (`--request-timeout`, `?timeout=`) and the answers that go
 * with it. A request that is not long-running gets a deadline counted from when its headers
 * arrived; the `timeout` query parameter (a Go duration) can only lower it, and a malformed one
 * is a 400 before anything else happens. When the deadline passes before the response is
 * written, the client gets kube's 504 Status; the handler is not interrupted (see ADR 0017).
 */
import { parseGoDuration } from "../machinery/cron.ts";
import { badRequest, type Status } from "../machinery/errors.ts";

/** kube-apiserver's `--request-timeout` default: one minute. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/**
 * How long a request may take, in ms: `maxMs` (the server's `--request-timeout`), lowered by a
 * positive `?timeout=` below it; 0 means no deadline (`--request-timeout=0`). A `?timeout=`
 * Go cannot parse throws kube's 400.
 */
export function requestDeadlineMs(query: URLSearchParams, maxMs: number): number {
  const value = query.get("timeout");
  if (value === null || value === "") return maxMs;
  const parsed = parseGoDuration(value);
  if (typeof parsed === "string") {
    throw badRequest(`invalid timeout specified in the request URL - ${parsed}`);
  }
  // As kube: 0 or a negative value means "no wish of the client's", and the server's bound holds.
  if (parsed > 0 && (maxMs <= 0 || parsed < maxMs)) return parsed;
  return maxMs;
}

/**
 * The answer to a request whose handler did not finish in time: kube's
 * `NewTimeoutError("request did not complete within the allotted timeout", 0)`. kube writes
 * it without kind and apiVersion (it encodes the bare struct); we add them so that clients,
 * kubectl included, read it as the Status it is rather than an unexpected body.
 */
export function requestTimeoutStatus(): Status {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "Timeout: request did not complete within the allotted timeout",
    reason: "Timeout",
    details: {},
    code: 504,
  };
}
