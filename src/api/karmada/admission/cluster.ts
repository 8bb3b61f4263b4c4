/**
 * Cluster, as karmada-aggregated-apiserver's registry strategy treats it: default resource
 * models on create (standardised ones otherwise), NoExecute taints stamped with the time they
 * were added, the deprecated `zone` moved into `zones`, and the spec checks of
 * `pkg/apis/cluster/validation`.
 */

import type { FieldError } from "../../../machinery/errors.ts";
import {
  compareQuantities,
  formatQuantity,
  parseQuantity,
  type Quantity,
} from "../../../machinery/quantity.ts";
import type { StoredObject } from "../../meta.ts";
import { rfc3339 } from "../../meta.ts";
import { child, duplicate, index, invalid, notSupported, required } from "../../validation/field.ts";
import { arr, byteLength, type Obj, obj, objs, str, strs } from "../../validation/json.ts";
import { type AdmissionFeatures, DEFAULT_FEATURES, type MutationContext } from "./context.ts";
import { isDNS1123Label, isLabelValue, validateLabelName } from "./formats.ts";
import { parseGoUrl } from "./go-url.ts";

/** 63 minus the 15 characters kept for the `karmada-es-` execution-namespace prefix. */
export const CLUSTER_NAME_MAX_LENGTH = 48;

const MAX_INT64 = 9223372036854775807n;
const MAX_INT64_TEXT = MAX_INT64.toString();

/** Problems with a cluster name; also applied to cluster names inside other kinds. */
export function clusterNameErrors(name: string): string[] {
  if (name.length === 0) return ["must be not empty"];
  if (byteLength(name) > CLUSTER_NAME_MAX_LENGTH)
    return [`must be no more than ${CLUSTER_NAME_MAX_LENGTH} characters`];
  return isDNS1123Label(name);
}

// ---- mutation -------------------------------------------------------------------------------

/** Nine grades: CPU doubles from 1 core, memory from 4Gi (grade 1 starts at 4Gi, then 16Gi). */
const DEFAULT_MODEL_BOUNDS: Array<[cpuMin: string, cpuMax: string, memMin: string, memMax: string]> = [
  ["0", "1", "0", "4Gi"],
  ["1", "2", "4Gi", "16Gi"],
  ["2", "4", "16Gi", "32Gi"],
  ["4", "8", "32Gi", "64Gi"],
  ["8", "16", "64Gi", "128Gi"],
  ["16", "32", "128Gi", "256Gi"],
  ["32", "64", "256Gi", "512Gi"],
  ["64", "128", "512Gi", "1Ti"],
  ["128", MAX_INT64_TEXT, "1Ti", MAX_INT64_TEXT],
];

export function defaultResourceModels(): Obj[] {
  return DEFAULT_MODEL_BOUNDS.map(([cpuMin, cpuMax, memMin, memMax], grade) => ({
    grade,
    ranges: [
      { name: "cpu", min: cpuMin, max: cpuMax },
      { name: "memory", min: memMin, max: memMax },
    ],
  }));
}

/** Sorts by grade and opens the outer bounds: the first grade starts at 0, the last ends at MaxInt64. */
export function standardizeResourceModels(models: Obj[]): Obj[] {
  if (models.length === 0) return models;
  const sorted = [...models].sort((a, b) => gradeOf(a) - gradeOf(b));
  for (const r of objs(sorted[0]!.ranges)) r.min = "0";
  for (const r of objs(sorted[sorted.length - 1]!.ranges)) r.max = MAX_INT64_TEXT;
  return sorted;
}

function gradeOf(model: Obj): number {
  return typeof model.grade === "number" ? model.grade : 0;
}

export function mutateCluster(
  cluster: StoredObject,
  old: StoredObject | undefined,
  ctx: MutationContext,
  features: AdmissionFeatures = DEFAULT_FEATURES,
): void {
  const spec = obj(cluster.spec);
  if (!spec) return;
  if (features.CustomizedClusterResourceModeling) {
    const models = objs(spec.resourceModels);
    if (models.length > 0) spec.resourceModels = standardizeResourceModels(models);
    else if (old === undefined) spec.resourceModels = defaultResourceModels();
  }
  for (const taint of objs(spec.taints)) {
    if (taint.effect === "NoExecute" && taint.timeAdded == null) taint.timeAdded = rfc3339(ctx.now());
  }
  // Upstream migrates after validating; an invalid zone stays put so its error names `spec.Zone`.
  const zone = str(spec.zone) ?? "";
  if (zone && strs(spec.zones).length === 0 && isLabelValue(zone).length === 0) {
    spec.zones = [zone];
    delete spec.zone;
  }
}

// ---- validation -----------------------------------------------------------------------------

const URL_FORM = "; desired format: hostname, hostname:port, IP or IP:port";

export function validateClusterApiEndpoint(path: string, endpoint: string): FieldError[] {
  const parsed = parseGoUrl(endpoint);
  if ("error" in parsed)
    return [invalid(path, endpoint, `apiEndpoint must be a valid URL: ${parsed.error}${URL_FORM}`)];
  const u = parsed.url;
  const errs: FieldError[] = [];
  if (!u.host) errs.push(invalid(path, u.host, `host must be provided${URL_FORM}`));
  if (u.user !== undefined) errs.push(invalid(path, u.user, "user information is not permitted in the URL"));
  if (u.fragment) errs.push(invalid(path, u.fragment, "fragments are not permitted in the URL"));
  if (u.rawQuery) errs.push(invalid(path, u.rawQuery, "query parameters are not permitted in the URL"));
  return errs;
}

export function validateClusterProxyUrl(path: string, proxyURL: string): FieldError[] {
  const parsed = parseGoUrl(proxyURL);
  // "apiEndpoint" in the proxy message is upstream's wording.
  if ("error" in parsed) return [invalid(path, proxyURL, `apiEndpoint must be a valid URL: ${parsed.error}`)];
  const scheme = parsed.url.scheme;
  if (scheme === "http" || scheme === "https" || scheme === "socks5") return [];
  return [
    invalid(path, proxyURL, `unsupported scheme ${JSON.stringify(scheme)}, must be http, https, or socks5`),
  ];
}

function validateSecretRef(ref: Obj | undefined, path: string): FieldError[] {
  if (!ref) return [];
  const errs: FieldError[] = [];
  if (!str(ref.namespace)) errs.push(required(child(path, "namespace")));
  if (!str(ref.name)) errs.push(required(child(path, "name")));
  return errs;
}

function validateLocation(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ["provider", "region"]) {
    const v = str(spec[f]) ?? "";
    const msgs = isLabelValue(v);
    if (msgs.length > 0) errs.push(invalid(child("spec", f), v, msgs.join("; ")));
  }
  const zone = str(spec.zone) ?? "";
  const zones = strs(spec.zones);
  if (zone && zones.length > 0) {
    // Upstream's path repeats `spec`.
    errs.push({
      type: "FieldValueTypeInvalid",
      field: "spec.spec",
      value: spec,
      detail: "Zone and Zones cannot co-exist",
    });
    return errs;
  }
  if (zone) {
    const msgs = isLabelValue(zone);
    if (msgs.length > 0) errs.push(invalid("spec.Zone", zone, msgs.join("; ")));
    return errs;
  }
  for (const z of zones) {
    const msgs = isLabelValue(z);
    if (msgs.length > 0) errs.push(invalid("spec.Zones", z, msgs.join("; ")));
  }
  return errs;
}

/** Cluster taints: label-like key and value, effect NoSchedule or NoExecute, unique per key and effect. */
export function validateClusterTaints(taints: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  objs(taints).forEach((t, i) => {
    const p = index(path, i);
    const key = str(t.key) ?? "";
    const value = str(t.value) ?? "";
    const effect = str(t.effect) ?? "";
    errs.push(...validateLabelName(key, child(p, "key")));
    const msgs = isLabelValue(value);
    if (msgs.length > 0) errs.push(invalid(child(p, "value"), value, msgs.join(";")));
    if (!effect) errs.push(required(child(p, "effect")));
    else if (effect !== "NoSchedule" && effect !== "NoExecute") {
      errs.push(notSupported(child(p, "effect"), effect, ["NoSchedule", "NoExecute"]));
    }
    const pair = `${effect}\u0000${key}`;
    if (seen.has(pair)) {
      errs.push({ ...duplicate(p, t), detail: "taints must be unique by key and effect pair" });
      return;
    }
    seen.add(pair);
  });
  return errs;
}

interface ModelRange {
  name: string;
  min: Quantity;
  max: Quantity;
}

const ZERO: Quantity = { n: 0n, scale: 0, format: "DecimalSI" };

function readRanges(model: Obj): ModelRange[] {
  return objs(model.ranges).map((r) => ({
    name: str(r.name) ?? "",
    min: parseQuantity(r.min) ?? ZERO,
    max: parseQuantity(r.max) ?? ZERO,
  }));
}

/** `Quantity.Value()`: rounded up to a whole number. */
function ceilValue(q: Quantity): bigint {
  if (q.scale >= 0) return q.n * 10n ** BigInt(q.scale);
  const d = 10n ** BigInt(-q.scale);
  const whole = q.n / d;
  return q.n % d !== 0n && q.n > 0n ? whole + 1n : whole;
}

/** Go compares the two Quantity structs; equal canonical forms is the closest plain-data reading. */
function sameQuantity(a: Quantity, b: Quantity): boolean {
  return formatQuantity(a) === formatQuantity(b);
}

/** The problem with range `j` of model `i`, given the previous model's ranges (none for the first). */
function rangeError(
  r: ModelRange,
  previous: ModelRange | undefined,
  first: boolean,
  last: boolean,
): string | undefined {
  if (compareQuantities(r.max, r.min) <= 0)
    return "The max value of each resource must be greater than the min value";
  if (first) {
    if (r.min.n !== 0n) return "The min value of each resource in the first model should be 0";
  } else if (previous?.name !== r.name) {
    return "The resource types of each models should be the same";
  } else if (!sameQuantity(previous.max, r.min)) {
    return "Model intervals for resources must be contiguous and non-overlapping";
  }
  if (last && ceilValue(r.max) !== MAX_INT64)
    return "The max value of each resource in the last model should be MaxInt64";
  return undefined;
}

/** The first problem with a list of resource models: grades distinct, intervals contiguous, outer bounds open. */
export function resourceModelsError(models: Obj[]): string | undefined {
  const ranges = models.map(readRanges);
  for (let i = 0; i < models.length; i++) {
    const current = ranges[i]!;
    const previous = i > 0 ? ranges[i - 1] : undefined;
    if (previous && gradeOf(models[i]!) === gradeOf(models[i - 1]!)) {
      return "The grade of each models should not be the same";
    }
    if (previous && previous.length !== current.length)
      return "The number of resource types should be the same";
    for (let j = 0; j < current.length; j++) {
      const why = rangeError(current[j]!, previous?.[j], i === 0, i === models.length - 1);
      if (why) return why;
    }
  }
  return undefined;
}

export function validateClusterSpec(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const syncMode = str(spec.syncMode) ?? "";
  if (!syncMode) errs.push(required("spec.syncMode"));
  if (syncMode !== "Pull" && syncMode !== "Push")
    errs.push(notSupported("spec.syncMode", syncMode, ["Pull", "Push"]));
  const endpoint = str(spec.apiEndpoint) ?? "";
  if (endpoint) errs.push(...validateClusterApiEndpoint("spec.apiEndpoint", endpoint));
  errs.push(...validateSecretRef(obj(spec.secretRef), "spec.secretRef"));
  errs.push(...validateSecretRef(obj(spec.impersonatorSecretRef), "spec.impersonatorSecretRef"));
  const proxy = str(spec.proxyURL) ?? "";
  if (proxy) errs.push(...validateClusterProxyUrl("spec.proxyURL", proxy));
  errs.push(...validateLocation(spec));
  errs.push(...validateClusterTaints(spec.taints, "spec.taints"));
  const models = arr(spec.resourceModels);
  if (models && models.length > 0) {
    const why = resourceModelsError(objs(models));
    if (why) errs.push(invalid("spec.resourceModels", models, why));
  }
  return errs;
}

/** Name and spec checks; the generic metadata rules are the server's. */
export function validateCluster(cluster: StoredObject, _old?: StoredObject): FieldError[] {
  const name = cluster.metadata.name ?? "";
  const errs: FieldError[] = name
    ? clusterNameErrors(name).map((m) => invalid("metadata.name", name, m))
    : [];
  errs.push(...validateClusterSpec(obj(cluster.spec) ?? {}));
  return errs;
}
