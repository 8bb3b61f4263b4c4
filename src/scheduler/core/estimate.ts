/**
 * The general replica estimator: how many more replicas of a binding each cluster can take,
 * judged from `status.resourceSummary` alone (upstream's `general-estimator`; the accurate
 * per-node `karmada-scheduler-estimator` is a separate service we do not run).
 *
 * With resource models (gate CustomizedClusterResourceModeling, on by default) and
 * `allocatableModelings` reported, the cluster is modelled as `count` identical nodes per grade,
 * each with the grade's minimum of every resource and room for 110 pods, and replicas are packed
 * first-fit; otherwise allocatable - allocated - allocating is divided by the request.
 * Both are capped by the free pod count.
 *
 * Parsed summaries and models are cached per object: informer objects are never mutated, a
 * changed Cluster is a new object.
 */
import type { ClusterObject, ClusterStatus, ReplicaRequirements } from "../../karmada/types.ts";
import { parseQuantity, type Quantity } from "../../machinery/quantity.ts";

export const MAX_INT32 = 2147483647;
/** Kubernetes' default pod limit per node, given to every modelled node. */
const MAX_PODS_PER_NODE = 110;

/** A quantity as Go's `Value()` and `MilliValue()` read it: scaled, rounded away from zero. */
interface Amount {
  value: number;
  milli: number;
}

type ResourceSummary = NonNullable<ClusterStatus["resourceSummary"]>;

interface ParsedSummary {
  allowedPods: number;
  /** allocatable - allocated - allocating per resource listed in allocatable. */
  available: Map<string, Amount>;
}

interface ModelGrade {
  count: number;
  capacity: Map<string, Amount>;
}

const pow10 = (e: number): bigint => 10n ** BigInt(e);

/** n * 10^scale rounded away from zero to 10^-digits. */
function scaled(q: Quantity, digits: number): number {
  const scale = q.scale + digits;
  if (scale >= 0) return Number(q.n * pow10(scale));
  const div = pow10(-scale);
  let r = q.n / div;
  if (q.n % div !== 0n) r += q.n < 0n ? -1n : 1n;
  return Number(r);
}

function amount(q: Quantity): Amount {
  return { value: scaled(q, 0), milli: scaled(q, 3) };
}

function parse(v: unknown): Quantity | undefined {
  return parseQuantity(v);
}

/** a - b - c, exactly. */
function subtract(a: Quantity, ...rest: Array<Quantity | undefined>): Quantity {
  let n = a.n;
  let scale = a.scale;
  for (const b of rest) {
    if (!b) continue;
    const s = Math.min(scale, b.scale);
    n = n * pow10(scale - s) - b.n * pow10(b.scale - s);
    scale = s;
  }
  return { n, scale, format: a.format };
}

const summaries = new WeakMap<ResourceSummary, ParsedSummary>();

function parsedSummary(summary: ResourceSummary): ParsedSummary {
  let parsed = summaries.get(summary);
  if (parsed) return parsed;
  const available = new Map<string, Amount>();
  for (const [name, raw] of Object.entries(summary.allocatable ?? {})) {
    const q = parse(raw);
    if (!q) continue;
    available.set(
      name,
      amount(subtract(q, parse(summary.allocated?.[name]), parse(summary.allocating?.[name]))),
    );
  }
  const pods = (list: Record<string, string> | undefined): number => {
    const q = parse(list?.pods);
    return q ? scaled(q, 0) : 0;
  };
  const allowed = pods(summary.allocatable) - pods(summary.allocated) - pods(summary.allocating);
  parsed = { allowedPods: Math.max(allowed, 0), available };
  summaries.set(summary, parsed);
  return parsed;
}

const requests = new WeakMap<object, Map<string, Amount>>();

function parsedRequest(request: Record<string, string>): Map<string, Amount> {
  let parsed = requests.get(request);
  if (parsed) return parsed;
  parsed = new Map();
  for (const [name, raw] of Object.entries(request)) {
    const q = parse(raw);
    parsed.set(name, q ? amount(q) : { value: 0, milli: 0 });
  }
  requests.set(request, parsed);
  return parsed;
}

/** allocatable - allocated - allocating pods, 0 when none are left. */
export function allowedPodNumber(summary: ResourceSummary): number {
  return parsedSummary(summary).allowedPods;
}

/** min over requested resources of floor(available / request); CPU in milli-units. */
export function maxReplicasBySummary(summary: ResourceSummary, request: Record<string, string>): number {
  const { available } = parsedSummary(summary);
  let max = Number.MAX_SAFE_INTEGER;
  for (const [name, req] of parsedRequest(request)) {
    if (req.value <= 0) continue;
    const free = available.get(name);
    if (!free || free.value <= 0) return 0;
    const fit = name === "cpu" ? Math.floor(free.milli / req.milli) : Math.floor(free.value / req.value);
    if (fit < max) max = fit;
  }
  return max;
}

/** Resources the node simulator divides: cpu, memory, ephemeral storage and scalar (extended) ones. */
function isScalarResource(name: string): boolean {
  return (
    (name.includes("/") && !name.startsWith("requests.")) ||
    name.startsWith("hugepages-") ||
    name.startsWith("attachable-volumes-")
  );
}

function dividedResource(name: string): boolean {
  return name === "cpu" || name === "memory" || name === "ephemeral-storage" || isScalarResource(name);
}

const models = new WeakMap<ClusterObject, ModelGrade[] | string>();

/** The modelled nodes per grade, ascending, or why the models cannot be used. */
function modelGrades(cluster: ClusterObject): ModelGrade[] | string {
  let grades = models.get(cluster);
  if (grades !== undefined) return grades;
  grades = buildModelGrades(cluster);
  models.set(cluster, grades);
  return grades;
}

function buildModelGrades(cluster: ClusterObject): ModelGrade[] | string {
  const specModels = cluster.spec?.resourceModels ?? [];
  const summary = cluster.status?.resourceSummary;
  if (!summary) return "resource summary is nil";
  if (specModels.length === 0) return "no resource models defined";
  const counts = new Map<number, number>();
  for (const a of summary.allocatableModelings ?? []) {
    if (a.count < 0) return `negative node count for grade ${a.grade}`;
    counts.set(a.grade, (counts.get(a.grade) ?? 0) + a.count);
  }
  const capacities = new Map<number, Map<string, Amount>>();
  for (const m of specModels) {
    const capacity = new Map<string, Amount>();
    for (const r of m.ranges) {
      if (!dividedResource(r.name)) continue;
      const q = parse(r.min);
      capacity.set(r.name, q ? amount(q) : { value: 0, milli: 0 });
    }
    capacities.set(m.grade, capacity);
  }
  return [...capacities.keys()]
    .sort((a, b) => a - b)
    .filter((g) => (counts.get(g) ?? 0) > 0)
    .map((g) => ({ count: counts.get(g)!, capacity: capacities.get(g)! }));
}

/**
 * First-fit packing of single replicas onto the modelled nodes. Nodes are independent, so the
 * packing fills each node to its own limit: Σ count × min(110, min_r floor(min_r / request_r)).
 */
export function maxReplicasByModels(
  cluster: ClusterObject,
  request: Record<string, string>,
): number | string {
  const grades = modelGrades(cluster);
  if (typeof grades === "string") return grades;
  const req = parsedRequest(request);
  let total = 0;
  for (const grade of grades) {
    let perNode = MAX_PODS_PER_NODE;
    for (const [name, r] of req) {
      if (!dividedResource(name)) continue;
      const need = name === "cpu" ? r.milli : r.value;
      if (need <= 0) continue;
      const cap = grade.capacity.get(name);
      const have = cap ? (name === "cpu" ? cap.milli : cap.value) : 0;
      perNode = Math.min(perNode, Math.floor(have / need));
    }
    total += grade.count * perNode;
    if (total >= MAX_INT32) return MAX_INT32;
  }
  return total;
}

/** The general estimator's answer for one cluster. */
export function maxAvailableReplicas(
  cluster: ClusterObject,
  requirements: ReplicaRequirements | undefined,
): number {
  const summary = cluster.status?.resourceSummary;
  if (!summary) return 0;
  const allowedPods = allowedPodNumber(summary);
  if (allowedPods <= 0) return 0;
  if (!requirements) return Math.min(allowedPods, MAX_INT32);
  const request = requirements.resourceRequest ?? {};
  if (summary.allocatableModelings?.length) {
    const byModels = maxReplicasByModels(cluster, request);
    if (typeof byModels === "number") return Math.min(byModels, allowedPods, MAX_INT32);
  }
  return Math.min(maxReplicasBySummary(summary, request), allowedPods, MAX_INT32);
}

/**
 * `calAvailableReplicas`: the estimate per cluster, by name. A non-workload (no replicas) is
 * not estimated: every cluster may take "MaxInt32".
 */
export function availableReplicas(
  clusters: readonly ClusterObject[],
  replicas: number,
  requirements: ReplicaRequirements | undefined,
): number[] {
  if (replicas === 0) return clusters.map(() => MAX_INT32);
  return clusters.map((c) => {
    const estimate = maxAvailableReplicas(c, requirements);
    // Only an estimator that had no answer leaves MaxInt32; upstream then assumes spec.replicas.
    return estimate === MAX_INT32 ? replicas : estimate;
  });
}
