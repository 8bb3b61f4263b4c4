/**
 * The client side of the admin endpoint, for `karmada member-sim fault`: command words to a
 * fault's JSON, and the request that sets it.
 *
 *   unreachable [--hang | --slow MS] [--except-user U]...
 *                                        unhealthy
 *   cordon [--node N]                    node-not-ready [--node N]
 *   delete-pods -n NS [-l SELECTOR]      unhealthy-workload -n NS KIND/NAME
 *   restore [--id ID]                    list
 */
import type { HttpClient } from "../client/http.ts";
import { FaultError, parseFault, WORKLOAD_KINDS } from "./faults.ts";

export interface FaultArgs {
  type: string;
  target?: string | undefined;
  namespace?: string | undefined;
  selector?: string | undefined;
  node?: string | undefined;
  id?: string | undefined;
  hang?: boolean | undefined;
  /** unreachable: answer every request after this many ms (mode slow). */
  slow?: string | undefined;
  /** unreachable: users who still reach the member (a partition). */
  exceptUser?: string[] | undefined;
}

/** The JSON body for `POST /sim/faults`; validated like the server does. Not for `list`. */
export function faultFromArgs(a: FaultArgs): Record<string, unknown> {
  let body: Record<string, unknown>;
  switch (a.type) {
    case "unreachable":
      if (a.hang && a.slow !== undefined)
        throw new FaultError("unreachable: choose one of --hang and --slow");
      body = {
        type: a.type,
        ...(a.hang ? { mode: "hang" } : {}),
        ...(a.slow !== undefined ? { mode: "slow", delayMs: Number(a.slow) } : {}),
        ...(a.exceptUser?.length ? { exceptUsers: a.exceptUser } : {}),
      };
      break;
    case "cordon":
    case "node-not-ready":
      body = { type: a.type, ...(a.node ? { node: a.node } : {}) };
      break;
    case "delete-pods":
      body = {
        type: a.type,
        namespace: a.namespace ?? "default",
        ...(a.selector ? { selector: a.selector } : {}),
      };
      break;
    case "unhealthy-workload": {
      const [kindText = "", name] = (a.target ?? "").split("/");
      const kind = WORKLOAD_KINDS.find((k) => k.toLowerCase() === kindText.toLowerCase());
      if (!kind || !name) {
        throw new FaultError(
          `unhealthy-workload needs KIND/NAME, KIND one of ${WORKLOAD_KINDS.join(", ")} (e.g. deployment/web)`,
        );
      }
      body = { type: a.type, namespace: a.namespace ?? "default", kind, name };
      break;
    }
    case "restore":
      body = { type: a.type, ...(a.id ? { id: a.id } : {}) };
      break;
    default:
      body = { type: a.type };
  }
  parseFault(body);
  return body;
}

/**
 * Sends a fault (or, with body undefined, lists faults) through a client of the member (its
 * admin endpoint is authenticated and authorized like the API); returns the response JSON or
 * throws with the server's error.
 */
export async function sendFault(
  client: Pick<HttpClient, "raw">,
  body: Record<string, unknown> | undefined,
): Promise<unknown> {
  const res = await client.raw(
    body === undefined ? "GET" : "POST",
    "/sim/faults",
    body === undefined ? {} : { body },
  );
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    json = { error: res.body };
  }
  if (res.status < 200 || res.status >= 300) {
    const msg =
      (json as { error?: string; message?: string }).error ?? (json as { message?: string }).message;
    throw new FaultError(msg ?? `HTTP ${res.status}`);
  }
  return json;
}
