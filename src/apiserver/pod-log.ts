/**
 * `GET pods/<name>/log`, split as Kubernetes splits it. kube-apiserver's part (LogREST and
 * LogLocation): validate PodLogOptions, read the pod, pick and check the container, find the
 * pod's node, then proxy to that node's kubelet. The kubelet's part: which container instance
 * (the PodLogSource, only a member-sim has one), then `tailLines`, `sinceSeconds`/`sinceTime`,
 * `timestamps`, `limitBytes` and `follow` over its lines, the same for every source.
 *
 * Answers as kube-apiserver does: a pod without a node is an empty 204 (LogLocation returns no
 * location and the generic stream writer answers No Content; `does not have a host assigned`
 * is what exec, attach and port-forward say, not logs); a node without a Node object is 404
 * `nodes "<n>" not found` (the kubelet connection lookup reads the Node); a server without
 * kubelets (the control plane) answers 500, as kube-apiserver does when the kubelet is
 * unreachable.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { isObject, type StoredObject } from "../api/meta.ts";
import {
  ApiError,
  badRequest,
  type FieldError,
  internalError,
  invalid,
  isNotFound,
  methodNotAllowed,
} from "../machinery/errors.ts";
import type { ContainerLog, LogLine, PodLogSource } from "./context.ts";
import type { ApiHandler, ApiResponse } from "./handler.ts";
import { parseQueryBool } from "./request-info.ts";
import type { ResourceType } from "./resource-type.ts";
import type { SubresourceHandler } from "./subresources.ts";
import { getObject } from "./verbs/read.ts";

/** PodLogOptions as the query string carries them (sinceTime in ms). */
export interface PodLogOptions {
  container?: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: number;
  tailLines?: number;
  limitBytes?: number;
}

const TEXT_PLAIN = { "Content-Type": "text/plain" };
/** `metav1.Time` in a query: RFC 3339, fractional seconds allowed (Go's time.RFC3339 parse). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === "") return undefined;
  if (!/^-?\d+$/.test(v))
    throw badRequest(`${name}: Invalid value: ${JSON.stringify(v)}: must be an integer`);
  return Number(v);
}

function boolParam(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v !== null && parseQueryBool(v);
}

function timeParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === "") return undefined;
  const ms = RFC3339.test(v) ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw badRequest(`${name}: Invalid value: ${JSON.stringify(v)}: must be an RFC 3339 time`);
  }
  return ms;
}

/** ValidatePodLogOptions' checks, with its messages. */
function validationErrors(o: PodLogOptions): FieldError[] {
  const errors: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0) {
    errors.push({
      type: "FieldValueInvalid",
      field: "tailLines",
      value: o.tailLines,
      detail: "must be greater than or equal to 0",
    });
  }
  if (o.limitBytes !== undefined && o.limitBytes < 1) {
    errors.push({
      type: "FieldValueInvalid",
      field: "limitBytes",
      value: o.limitBytes,
      detail: "must be greater than 0",
    });
  }
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) {
    errors.push({
      type: "FieldValueForbidden",
      field: "",
      detail: "at most one of `sinceTime` or `sinceSeconds` may be specified",
    });
  } else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) {
    errors.push({
      type: "FieldValueInvalid",
      field: "sinceSeconds",
      value: o.sinceSeconds,
      detail: "must be greater than 0",
    });
  }
  return errors;
}

/** The query's PodLogOptions: 400 for a value that does not parse, 422 for one that is not allowed. */
export function parsePodLogOptions(q: URLSearchParams, podName: string): PodLogOptions {
  const o: PodLogOptions = {
    follow: boolParam(q, "follow"),
    previous: boolParam(q, "previous"),
    timestamps: boolParam(q, "timestamps"),
  };
  const container = q.get("container");
  if (container) o.container = container;
  const sinceSeconds = intParam(q, "sinceSeconds");
  if (sinceSeconds !== undefined) o.sinceSeconds = sinceSeconds;
  const sinceTime = timeParam(q, "sinceTime");
  if (sinceTime !== undefined) o.sinceTime = sinceTime;
  const tailLines = intParam(q, "tailLines");
  if (tailLines !== undefined) o.tailLines = tailLines;
  const limitBytes = intParam(q, "limitBytes");
  if (limitBytes !== undefined) o.limitBytes = limitBytes;
  const errors = validationErrors(o);
  if (errors.length > 0) throw invalid({ group: "", kind: "PodLogOptions" }, podName, errors);
  return o;
}

function namesOf(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((c) => (isObject(c) && typeof c.name === "string" ? [c.name] : []));
}

/**
 * The container the request is about (validateContainer): the only one when none is named;
 * otherwise it must be one of the pod's (init, regular, ephemeral) containers.
 */
export function podContainer(pod: StoredObject, requested: string | undefined): string {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const regular = namesOf(spec.containers);
  const all = [...namesOf(spec.initContainers), ...regular, ...namesOf(spec.ephemeralContainers)];
  const name = pod.metadata.name;
  if (requested !== undefined) {
    if (!all.includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
    return requested;
  }
  if (regular.length === 1) return regular[0]!;
  if (regular.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
  throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${all.join(" ")}]`);
}

/** Go's time.RFC3339Nano for a UTC time: fractional seconds without trailing zeros. */
export function rfc3339Nano(ms: number): string {
  const iso = new Date(ms).toISOString();
  const fraction = iso.slice(20, 23).replace(/0+$/, "");
  return `${iso.slice(0, 19)}${fraction ? `.${fraction}` : ""}Z`;
}

/** The earliest line time the request wants (sinceSeconds counts back from `now`). */
function sinceOf(o: PodLogOptions, now: number): number | undefined {
  if (o.sinceSeconds !== undefined) return now - o.sinceSeconds * 1000;
  return o.sinceTime;
}

/** The lines the kubelet sends first: the last `tailLines`, then those not before `since`. */
export function selectLines(lines: readonly LogLine[], o: PodLogOptions, now: number): LogLine[] {
  const tail = o.tailLines === undefined ? lines : lines.slice(Math.max(0, lines.length - o.tailLines));
  const since = sinceOf(o, now);
  return since === undefined ? [...tail] : tail.filter((l) => l.time >= since);
}

export function renderLines(lines: readonly LogLine[], timestamps: boolean): string {
  return lines.map((l) => `${timestamps ? `${rfc3339Nano(l.time)} ` : ""}${l.text}\n`).join("");
}

/** Counts down `limitBytes`: what of a chunk may still go out (a line may be cut, as the kubelet cuts it). */
class ByteBudget {
  #left: number;
  constructor(limit: number | undefined) {
    this.#left = limit ?? Number.POSITIVE_INFINITY;
  }
  get spent(): boolean {
    return this.#left <= 0;
  }
  take(text: string): string {
    const bytes = Buffer.from(text, "utf8");
    if (bytes.length <= this.#left) {
      this.#left -= bytes.length;
      return text;
    }
    const cut = bytes.subarray(0, this.#left).toString("utf8");
    this.#left = 0;
    return cut;
  }
}

interface FollowTarget {
  h: ApiHandler;
  rt: ResourceType;
  source: PodLogSource;
  pod: StoredObject;
  container: string;
  log: ContainerLog;
  options: PodLogOptions;
  budget: ByteBudget;
}

/** The pod as stored now, if it is still the same pod. */
async function currentPod(t: FollowTarget): Promise<StoredObject | undefined> {
  try {
    const pod = await getObject(t.h.server, t.rt, t.pod.metadata.namespace, t.pod.metadata.name);
    return pod.metadata.uid === t.pod.metadata.uid ? pod : undefined;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Whether the followed instance still runs in `pod` (the kubelet stops following when it exits). */
function stillRunning(t: FollowTarget, pod: StoredObject): boolean {
  try {
    const log = t.source.read(pod, t.container, false);
    return log.running && log.instance === t.log.instance;
  } catch (err) {
    if (err instanceof ApiError) return false;
    throw err;
  }
}

/**
 * `follow`: what was selected, then each new line as the container writes it, until the
 * client leaves, the byte limit is spent, or the instance stops running (pod deleted,
 * container exited or restarted).
 */
async function followLog(
  t: FollowTarget,
  first: string,
  write: (chunk: string) => void,
  signal: AbortSignal,
): Promise<void> {
  if (first) write(first);
  const since = sinceOf(t.options, t.h.server.clock.now());
  for (let n = 1; !t.budget.spent; n++) {
    try {
      await sleep(t.source.followIntervalMs, undefined, { signal });
    } catch {
      return;
    }
    const pod = await currentPod(t);
    if (!pod || !stillRunning(t, pod)) return;
    const line = t.source.next(pod, t.container, n, t.h.server.clock.now());
    if (since !== undefined && line.time < since) continue;
    write(t.budget.take(renderLines([line], t.options.timestamps)));
  }
}

/** The node's Node object, as kube-apiserver reads it to reach the kubelet (404 if missing). */
async function requireNode(h: ApiHandler, nodeName: string): Promise<void> {
  const nodes = h.server.registry.get("", "v1", "nodes");
  if (nodes) await getObject(h.server, nodes, undefined, nodeName);
}

async function podLog(
  h: ApiHandler,
  q: URLSearchParams,
  rt: ResourceType,
  namespace: string | undefined,
  name: string,
): Promise<ApiResponse> {
  const options = parsePodLogOptions(q, name);
  const pod = await getObject(h.server, rt, namespace, name);
  const container = podContainer(pod, options.container);
  const nodeName = isObject(pod.spec) && typeof pod.spec.nodeName === "string" ? pod.spec.nodeName : "";
  if (!nodeName) return { status: 204, headers: {} };
  await requireNode(h, nodeName);
  const source = h.server.podLogs;
  if (!source) {
    throw internalError(
      new Error(`no kubelet reachable on node "${nodeName}" for the logs of pod "${namespace}/${name}"`),
    );
  }
  const log = source.read(pod, container, options.previous);
  const budget = new ByteBudget(options.limitBytes);
  const first = budget.take(
    renderLines(selectLines(log.lines, options, h.server.clock.now()), options.timestamps),
  );
  if (!options.follow || !log.running || budget.spent)
    return { status: 200, headers: TEXT_PLAIN, text: first };
  const target: FollowTarget = { h, rt, source, pod, container, log, options, budget };
  return {
    status: 200,
    headers: TEXT_PLAIN,
    stream: (write, signal) => followLog(target, first, write, signal),
  };
}

export const podLogSubresource: SubresourceHandler = {
  supports: (rt) => rt.group === "" && rt.kind === "Pod",
  async handle(h, req, _ctx, rt, info) {
    if (info.verb !== "get") {
      throw methodNotAllowed(info.verb, { group: rt.group, resource: `${rt.plural}/${info.subresource}` });
    }
    return podLog(h, req.query, rt, info.namespace, info.name!);
  },
};
