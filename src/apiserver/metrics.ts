/**
 * kube-apiserver's metrics, with its names and labels: `apiserver_request_total` and
 * `apiserver_request_duration_seconds` (verb, dry_run, group, version, resource, subresource,
 * scope, component, and code for the total), `apiserver_current_inflight_requests{request_kind}`,
 * `apiserver_longrunning_requests`, `apiserver_request_terminations_total` and
 * `apiserver_dropped_requests_total{request_kind}` (requests refused with 429 or cut at their
 * deadline, ADR 0017), `apiserver_storage_objects{resource}` (counted from the store, at
 * most once a minute, as kube-apiserver refreshes it), and `etcd_requests_total{operation,type}`
 * for the writes the verbs make to the store, whatever the backend and whoever asked (in-process
 * controllers included: the count behind "API writes per template" in the scale bench).
 *
 * Requests are measured where HTTP is served (http.ts), from their headers until the response
 * ends, so a watch counts when it ends; requests made in process (the controllers of `karmada
 * up`) do not go through HTTP and are not counted here (their client side is: see the work queue
 * and controller metrics).
 */
import { counter, gauge, histogram, type Registry as MetricsRegistry } from "../metrics/registry.ts";
import type { Store } from "../storage/store.ts";
import { isLongRunningRequest } from "./max-inflight.ts";
import type { RequestInfo } from "./request-info.ts";
import { type ResourceType, storagePrefix } from "./resource-type.ts";

/** kube-apiserver's request latency buckets. */
const REQUEST_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];
const STORAGE_REFRESH_MS = 60_000;
const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

type RequestLabel =
  | "verb"
  | "dry_run"
  | "group"
  | "version"
  | "resource"
  | "subresource"
  | "scope"
  | "component";

export interface RequestMetrics {
  /**
   * A request whose headers arrived (`info`: what `requestInfo` makes of it); call the
   * returned function with its status when the response ends.
   */
  begin(method: string, url: URL, info: RequestInfo, contentType: string | undefined): (code: number) => void;
  /**
   * A request the server ended in self-defense: refused by max-in-flight (429, also counted
   * as dropped) or past its deadline (504).
   */
  terminated(
    method: string,
    url: URL,
    info: RequestInfo,
    contentType: string | undefined,
    code: number,
  ): void;
  /** An object written to the store: created, updated (status and finalizer removals too) or deleted. */
  stored(rt: ResourceType, operation: "create" | "update" | "delete"): void;
}

/** The resource as `apiserver_storage_objects` names it: `deployments.apps`, `pods`. */
const resourceLabel = (rt: ResourceType): string => (rt.group ? `${rt.plural}.${rt.group}` : rt.plural);

/** The labels kube-apiserver gives a request: its canonical verb (LIST, WATCH, APPLY, ...) and what it is about. */
export function requestLabels(
  method: string,
  url: URL,
  info: RequestInfo,
  contentType: string | undefined,
): Record<RequestLabel, string> {
  const dryRun = url.searchParams.getAll("dryRun").sort().join(",");
  if (info.kind === "nonresource") {
    return {
      verb: method,
      dry_run: dryRun,
      group: "",
      version: "",
      resource: "",
      subresource: "",
      scope: "",
      component: "apiserver",
    };
  }
  let verb: string;
  switch (info.verb) {
    case "create":
      verb = "POST";
      break;
    case "update":
      verb = "PUT";
      break;
    case "patch":
      verb = contentType?.startsWith("application/apply-patch") ? "APPLY" : "PATCH";
      break;
    case "deletecollection":
    case "delete":
      verb = "DELETE";
      break;
    default:
      verb = info.verb.toUpperCase();
  }
  if (info.subresource && /^(proxy|exec|attach|portforward)(\/|$)/.test(info.subresource)) verb = "CONNECT";
  return {
    verb,
    dry_run: dryRun,
    group: info.group,
    version: info.version,
    resource: info.resource,
    subresource: info.subresource?.split("/")[0] ?? "",
    scope:
      info.name !== undefined || info.verb === "create"
        ? "resource"
        : info.namespace
          ? "namespace"
          : "cluster",
    component: "apiserver",
  };
}

export function apiserverMetrics(
  registry: MetricsRegistry,
  storage: { store: Store; types: () => ResourceType[] },
): RequestMetrics {
  const labelNames: RequestLabel[] = [
    "verb",
    "dry_run",
    "group",
    "version",
    "resource",
    "subresource",
    "scope",
    "component",
  ];
  const total = counter(registry, {
    name: "apiserver_request_total",
    help: "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
    labelNames: [...labelNames, "code"],
  });
  const duration = histogram(registry, {
    name: "apiserver_request_duration_seconds",
    help: "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
    labelNames,
    buckets: REQUEST_BUCKETS,
  });
  const inflight = { readOnly: 0, mutating: 0 };
  gauge(registry, {
    name: "apiserver_current_inflight_requests",
    help: "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
    labelNames: ["request_kind"],
    collect() {
      this.set({ request_kind: "readOnly" }, inflight.readOnly);
      this.set({ request_kind: "mutating" }, inflight.mutating);
    },
  });
  // Upstream's long-running gauge has every request label but dry_run.
  const longRunning = gauge(registry, {
    name: "apiserver_longrunning_requests",
    help: "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
    labelNames: labelNames.filter((l) => l !== "dry_run"),
  });
  const terminations = counter(registry, {
    name: "apiserver_request_terminations_total",
    help: "Number of requests which apiserver terminated in self-defense.",
    labelNames: [...labelNames.filter((l) => l !== "dry_run"), "code"],
  });
  const dropped = counter(registry, {
    name: "apiserver_dropped_requests_total",
    help: "Number of requests dropped with 'Try again later' response",
    labelNames: ["request_kind"],
  });
  const storeWrites = counter(registry, {
    name: "etcd_requests_total",
    help: "Etcd request counts for each operation and object type (writes: create, update, delete).",
    labelNames: ["operation", "type"],
  });
  let counted = 0;
  gauge(registry, {
    name: "apiserver_storage_objects",
    help: "Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
    labelNames: ["resource"],
    async collect() {
      if (counted !== 0 && Date.now() - counted < STORAGE_REFRESH_MS) return;
      counted = Date.now();
      const seen = new Set<string>();
      for (const rt of storage.types()) {
        const resource = resourceLabel(rt);
        // Several versions of a kind share one place in the store.
        if (seen.has(resource)) continue;
        seen.add(resource);
        let n: number;
        try {
          n = await storage.store.count(storagePrefix(rt));
        } catch {
          n = -1;
        }
        this.set({ resource }, n);
      }
    },
  });
  return {
    stored(rt, operation) {
      storeWrites.inc({ operation, type: resourceLabel(rt) });
    },
    terminated(method, url, info, contentType, code) {
      const { dry_run: _, ...labels } = requestLabels(method, url, info, contentType);
      terminations.inc({ ...labels, code: String(code) });
      if (code === 429) dropped.inc({ request_kind: MUTATING.has(method) ? "mutating" : "readOnly" });
    },
    begin(method, url, info, contentType) {
      const labels = requestLabels(method, url, info, contentType);
      const start = performance.now();
      const long = isLongRunningRequest(info);
      const { dry_run: _, ...longLabels } = labels;
      const kind = MUTATING.has(method) ? "mutating" : "readOnly";
      if (long) longRunning.inc(longLabels);
      else inflight[kind]++;
      let ended = false;
      return (code) => {
        if (ended) return;
        ended = true;
        if (long) longRunning.dec(longLabels);
        else inflight[kind]--;
        total.inc({ ...labels, code: String(code) });
        duration.observe(labels, (performance.now() - start) / 1000);
      };
    },
  };
}
