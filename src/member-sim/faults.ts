/**
 * Fault injection: what can go wrong with a member cluster, as plain data.
 *
 *   {"type":"unreachable"}                  the HTTP server resets every connection (clients see
 *                                           ECONNRESET / "socket hang up", never an HTTP status);
 *   {"type":"unreachable","mode":"hang"}    requests are accepted and never answered, open
 *                                           streams go silent (clients see timeouts)
 *   {"type":"unreachable","mode":"slow","delayMs":2000}
 *                                           every request waits delayMs (default 2000) before
 *                                           it is served: a member that answers, slowly
 *   ...,"exceptUsers":["u"]                 (any mode) only clients authenticated as other users
 *                                           see the fault: a partition between the control plane
 *                                           and a member that its agent does not share
 *   {"type":"unhealthy"}                    /readyz and /healthz answer 500; the API keeps working
 *   {"type":"cordon"} / {"type":"cordon","node":"n"}    nodes become unschedulable
 *   {"type":"node-not-ready"[,"node":"n"]}  kubelets stop posting status: Ready=Unknown, taints,
 *                                           pods not ready, evicted after their tolerations
 *   {"type":"unhealthy-workload","namespace":"x","kind":"Deployment","name":"y"}
 *                                           the workload's pods crash-loop (not Ready, restarts)
 *   {"type":"delete-pods","namespace":"x","selector":"app=y"}   one-shot: deletes matching pods
 *   {"type":"restore"} / {"type":"restore","id":"f3"}            ends all faults, or one
 *
 * The admin endpoint (`POST/GET/DELETE /sim/faults`, see admin.ts) and `faults.set()` in
 * process take the same JSON. Faults live in memory: a restarted simulator is healthy.
 */
import { rfc3339 } from "../api/meta.ts";
import { parseSelector, SelectorParseError } from "../machinery/labels.ts";

export const WORKLOAD_KINDS = ["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

export type Fault =
  | {
      type: "unreachable";
      mode: UnreachableMode;
      /** mode slow: how long each request waits. */
      delayMs?: number;
      /** Users who still reach the member (a partition); absent: nobody does. */
      exceptUsers?: string[];
    }
  | { type: "unhealthy" }
  | { type: "cordon"; node?: string }
  | { type: "node-not-ready"; node?: string }
  | { type: "unhealthy-workload"; namespace: string; kind: WorkloadKind; name: string }
  | { type: "delete-pods"; namespace: string; selector: string }
  | { type: "restore"; id?: string };

export const FAULT_TYPES = [
  "unreachable",
  "unhealthy",
  "cordon",
  "node-not-ready",
  "unhealthy-workload",
  "delete-pods",
  "restore",
] as const;

export type UnreachableMode = "reset" | "hang" | "slow";
const UNREACHABLE_MODES: readonly UnreachableMode[] = ["reset", "hang", "slow"];
const DEFAULT_SLOW_DELAY_MS = 2_000;
/** A slow member still answers: a minute is beyond every client's timeout. */
const MAX_SLOW_DELAY_MS = 60_000;

/** What a client of the member meets under the unreachable faults in effect. */
export interface Unreachable {
  mode: UnreachableMode;
  delayMs?: number;
}

/** A fault in effect. */
export type ActiveFault = Exclude<Fault, { type: "delete-pods" } | { type: "restore" }> & {
  id: string;
  since: string;
};

export type FaultResult = { fault: ActiveFault } | { deleted: number } | { restored: ActiveFault[] };

/** A fault the caller described wrongly (HTTP 400). */
export class FaultError extends Error {}

/** The writes some faults make (and undo) in the cluster. */
export interface FaultActions {
  /** Cordons (or uncordons) the named nodes, or all; returns the nodes whose state changed. */
  cordon(node: string | undefined, unschedulable: boolean): Promise<string[]>;
  deletePods(namespace: string, selector: string): Promise<number>;
}

function field(input: Record<string, unknown>, name: string, type: string): string | undefined {
  const v = input[name];
  if (v === undefined) return undefined;
  if (typeof v !== "string" || v === "")
    throw new FaultError(`${type}: "${name}" must be a non-empty string`);
  return v;
}

function required(input: Record<string, unknown>, name: string, type: string): string {
  const v = field(input, name, type);
  if (v === undefined) throw new FaultError(`${type}: "${name}" is required`);
  return v;
}

/** The unreachable fault's fields: mode, its delay, the users it spares. */
function parseUnreachable(o: Record<string, unknown>): Fault {
  const type = "unreachable";
  const mode = (field(o, "mode", type) ?? "reset") as UnreachableMode;
  if (!UNREACHABLE_MODES.includes(mode))
    throw new FaultError(`unreachable: "mode" must be ${UNREACHABLE_MODES.join(", ")}`);
  const delay = o.delayMs;
  if (delay !== undefined && mode !== "slow")
    throw new FaultError('unreachable: "delayMs" is only for mode slow');
  if (
    delay !== undefined &&
    (typeof delay !== "number" || !Number.isInteger(delay) || delay < 0 || delay > MAX_SLOW_DELAY_MS)
  )
    throw new FaultError(`unreachable: "delayMs" must be an integer from 0 to ${MAX_SLOW_DELAY_MS}`);
  const except = o.exceptUsers;
  if (
    except !== undefined &&
    (!Array.isArray(except) || except.length === 0 || !except.every((u) => typeof u === "string" && u !== ""))
  )
    throw new FaultError('unreachable: "exceptUsers" must be a non-empty list of user names');
  return {
    type,
    mode,
    ...(mode === "slow" ? { delayMs: (delay as number | undefined) ?? DEFAULT_SLOW_DELAY_MS } : {}),
    ...(except ? { exceptUsers: [...(except as string[])] } : {}),
  };
}

/** Validates a fault's JSON; throws FaultError naming what is wrong. */
export function parseFault(input: unknown): Fault {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new FaultError('a fault is a JSON object like {"type":"unreachable"}');
  }
  const o = input as Record<string, unknown>;
  const type = o.type;
  if (typeof type !== "string" || !(FAULT_TYPES as readonly string[]).includes(type)) {
    throw new FaultError(`"type" must be one of ${FAULT_TYPES.join(", ")}`);
  }
  const allowed: Record<string, string[]> = {
    unreachable: ["mode", "delayMs", "exceptUsers"],
    unhealthy: [],
    cordon: ["node"],
    "node-not-ready": ["node"],
    "unhealthy-workload": ["namespace", "kind", "name"],
    "delete-pods": ["namespace", "selector"],
    restore: ["id"],
  };
  for (const key of Object.keys(o)) {
    if (key !== "type" && !allowed[type]!.includes(key))
      throw new FaultError(`${type}: unknown field "${key}"`);
  }
  switch (type) {
    case "unreachable":
      return parseUnreachable(o);
    case "unhealthy":
      return { type };
    case "cordon":
    case "node-not-ready": {
      const node = field(o, "node", type);
      return node ? { type, node } : { type };
    }
    case "unhealthy-workload": {
      const kind = required(o, "kind", type);
      if (!(WORKLOAD_KINDS as readonly string[]).includes(kind)) {
        throw new FaultError(`unhealthy-workload: "kind" must be one of ${WORKLOAD_KINDS.join(", ")}`);
      }
      return {
        type,
        namespace: required(o, "namespace", type),
        kind: kind as WorkloadKind,
        name: required(o, "name", type),
      };
    }
    case "delete-pods": {
      const selector = field(o, "selector", type) ?? "";
      try {
        parseSelector(selector);
      } catch (err) {
        if (err instanceof SelectorParseError)
          throw new FaultError(`delete-pods: "selector": ${err.message}`);
        throw err;
      }
      return { type, namespace: required(o, "namespace", type), selector };
    }
    default: {
      const id = field(o, "id", type);
      return id ? { type: "restore", id } : { type: "restore" };
    }
  }
}

/** The faults in effect, and what setting or ending one does. */
export class Faults {
  #active: ActiveFault[] = [];
  #listeners = new Set<() => void>();
  #next = 1;
  #now: () => number;
  #actions: FaultActions | undefined;
  /** Nodes cordon faults cordoned (not those cordoned before), to uncordon exactly those. */
  #cordoned = new Set<string>();

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Connects the writes faults make; until then cordon and delete-pods are refused. */
  bind(actions: FaultActions): void {
    this.#actions = actions;
  }

  list(): ActiveFault[] {
    return this.#active.map((f) => ({ ...f }));
  }

  /** Called after every change (synchronously, before `set` resolves). */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Sets (or, for restore, ends) a fault from its JSON. */
  async set(input: unknown): Promise<FaultResult> {
    const fault = parseFault(input);
    if (fault.type === "restore") return { restored: await this.restore(fault.id) };
    if (fault.type === "delete-pods") {
      return { deleted: await this.#needActions().deletePods(fault.namespace, fault.selector) };
    }
    const active = { ...fault, id: `f${this.#next++}`, since: rfc3339(this.#now()) } as ActiveFault;
    if (fault.type === "cordon") {
      for (const node of await this.#needActions().cordon(fault.node, true)) this.#cordoned.add(node);
    }
    this.#active.push(active);
    this.#changed();
    return { fault: { ...active } };
  }

  /** Ends every fault, or the one with `id`; returns what ended. */
  async restore(id?: string): Promise<ActiveFault[]> {
    const ending = id === undefined ? this.#active : this.#active.filter((f) => f.id === id);
    if (id !== undefined && ending.length === 0) throw new FaultError(`restore: no active fault "${id}"`);
    this.#active = this.#active.filter((f) => !ending.includes(f));
    // Uncordon what faults cordoned, unless a remaining cordon fault still asks for it.
    const held = (node: string) =>
      this.#active.some((a) => a.type === "cordon" && (a.node === undefined || a.node === node));
    for (const node of [...this.#cordoned]) {
      if (held(node)) continue;
      this.#cordoned.delete(node);
      await this.#actions?.cordon(node, false);
    }
    if (ending.length > 0) this.#changed();
    return ending;
  }

  /**
   * What a client meets under the unreachable faults in effect (undefined: none): for `user`
   * (undefined: not known yet), those that except it are skipped. The first fault set wins.
   */
  unreachable(user?: string): Unreachable | undefined {
    for (const f of this.#active) {
      if (f.type !== "unreachable") continue;
      if (user !== undefined && f.exceptUsers?.includes(user)) continue;
      return f.delayMs !== undefined ? { mode: f.mode, delayMs: f.delayMs } : { mode: f.mode };
    }
    return undefined;
  }

  /** Whether some unreachable fault spares some users: then who asks decides. */
  unreachableDependsOnUser(): boolean {
    return this.#active.some((f) => f.type === "unreachable" && f.exceptUsers !== undefined);
  }

  isUnhealthy(): boolean {
    return this.#active.some((f) => f.type === "unhealthy");
  }

  nodeNotReady(node: string): boolean {
    return this.#active.some((f) => f.type === "node-not-ready" && (f.node === undefined || f.node === node));
  }

  workloadUnhealthy(namespace: string | undefined, kind: string, name: string): boolean {
    return this.#active.some(
      (f) =>
        f.type === "unhealthy-workload" && f.namespace === namespace && f.kind === kind && f.name === name,
    );
  }

  hasUnhealthyWorkloads(): boolean {
    return this.#active.some((f) => f.type === "unhealthy-workload");
  }

  #needActions(): FaultActions {
    if (!this.#actions) throw new FaultError("the cluster is not running");
    return this.#actions;
  }

  #changed(): void {
    for (const l of this.#listeners) l();
  }
}
