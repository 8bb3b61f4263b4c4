/**
 * What one replica of a pod template needs from a node (upstream's
 * `GenerateReplicaRequirements`): the node constraints the scheduler-estimator checks and the
 * pod's effective resource request, computed the way kube-scheduler does.
 */
import { isQualifiedName } from "../../api/validation/names.ts";
import type { ReplicaRequirements, Toleration } from "../../karmada/types.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import {
  formatQuantity,
  parseQuantity,
  type Quantity,
  type QuantityFormat,
} from "../../machinery/quantity.ts";
import { arrayAt, isObject, type JsonObject, objectAt, stringAt, valueAt } from "./fields.ts";

export interface RequirementOptions {
  /** The ResourceQuotaEstimate feature gate (alpha, off by default) adds `priorityClassName`. */
  resourceQuotaEstimate?: boolean;
}

/** Requirements of one replica of `podSpec`, or undefined when it constrains nothing. */
export function replicaRequirements(
  podSpec: unknown,
  options: RequirementOptions = {},
): ReplicaRequirements | undefined {
  const nodeClaim = nodeClaimOf(podSpec);
  const resourceRequest = effectivePodRequest(podSpec);
  if (!nodeClaim && !resourceRequest) return undefined;
  const out: ReplicaRequirements = {};
  if (nodeClaim) out.nodeClaim = nodeClaim;
  if (resourceRequest) out.resourceRequest = resourceRequest;
  const priorityClassName = stringAt(podSpec, "priorityClassName");
  if (options.resourceQuotaEstimate && priorityClassName !== "") out.priorityClassName = priorityClassName;
  return out;
}

type NodeClaim = NonNullable<ReplicaRequirements["nodeClaim"]>;

/** nodeSelector, tolerations and the required node affinity; undefined when none is set. */
function nodeClaimOf(podSpec: unknown): NodeClaim | undefined {
  const nodeSelector = objectAt(podSpec, "nodeSelector");
  const tolerations = arrayAt(podSpec, "tolerations");
  const required = objectAt(
    podSpec,
    "affinity",
    "nodeAffinity",
    "requiredDuringSchedulingIgnoredDuringExecution",
  );
  if (!nodeSelector && !required && tolerations.length === 0) return undefined;
  const claim: NodeClaim = {};
  if (required) claim.hardNodeAffinity = cloneJson(required);
  if (nodeSelector && Object.keys(nodeSelector).length > 0) {
    claim.nodeSelector = cloneJson(nodeSelector) as Record<string, string>;
  }
  if (tolerations.length > 0) claim.tolerations = cloneJson(tolerations) as Toleration[];
  return claim;
}

/**
 * How a resource is counted: CPU in milli-units, everything else the scheduler knows in whole
 * units, and names it does not account for (e.g. `storage`) not at all.
 */
function unitScale(name: string): number | undefined {
  if (name === "cpu") return -3;
  if (name === "memory" || name === "pods" || name === "ephemeral-storage") return 0;
  return isScalarResourceName(name) ? 0 : undefined;
}

function outputFormat(name: string): QuantityFormat {
  if (name === "memory" || name === "ephemeral-storage" || name.startsWith("hugepages-")) return "BinarySI";
  return "DecimalSI";
}

function isNativeResourceName(name: string): boolean {
  return !name.includes("/") || name.includes("kubernetes.io/");
}

function isExtendedResourceName(name: string): boolean {
  if (isNativeResourceName(name) || name.startsWith("requests.")) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

function isScalarResourceName(name: string): boolean {
  return (
    isExtendedResourceName(name) ||
    name.startsWith("hugepages-") ||
    name.includes("kubernetes.io/") ||
    name.startsWith("attachable-volumes-")
  );
}

/** The quantity in units of 10^scale, rounded away from zero (`Quantity.ScaledValue`). */
function scaledValue(q: Quantity, scale: number): bigint {
  if (q.scale >= scale) return q.n * 10n ** BigInt(q.scale - scale);
  const div = 10n ** BigInt(scale - q.scale);
  const abs = q.n < 0n ? -q.n : q.n;
  const rounded = abs / div + (abs % div === 0n ? 0n : 1n);
  return q.n < 0n ? -rounded : rounded;
}

/** A container's requests, with limits standing in for the requests it leaves out. */
function containerRequests(container: unknown): JsonObject {
  const requests = objectAt(container, "resources", "requests") ?? {};
  const limits = objectAt(container, "resources", "limits") ?? {};
  return { ...limits, ...requests };
}

function eachCounted(list: JsonObject, visit: (name: string, units: bigint) => void): void {
  for (const [name, raw] of Object.entries(list)) {
    const scale = unitScale(name);
    const q = parseQuantity(raw);
    if (scale === undefined || !q) continue;
    visit(name, scaledValue(q, scale));
  }
}

/**
 * max(sum of the app containers, largest init container) per resource, plus the pod overhead;
 * only positive amounts, in canonical form. Undefined when nothing is requested.
 */
export function effectivePodRequest(podSpec: unknown): Record<string, string> | undefined {
  const total = new Map<string, bigint>();
  const add = (name: string, units: bigint) => total.set(name, (total.get(name) ?? 0n) + units);
  for (const container of arrayAt(podSpec, "containers")) eachCounted(containerRequests(container), add);
  for (const container of arrayAt(podSpec, "initContainers")) {
    eachCounted(containerRequests(container), (name, units) => {
      if (units > (total.get(name) ?? 0n)) total.set(name, units);
    });
  }
  const overhead = valueAt(podSpec, "overhead");
  if (isObject(overhead)) eachCounted(overhead, add);

  const out: Record<string, string> = {};
  for (const name of [...total.keys()].sort()) {
    const units = total.get(name)!;
    if (units <= 0n) continue;
    out[name] = formatQuantity({ n: units, scale: unitScale(name)!, format: outputFormat(name) });
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
