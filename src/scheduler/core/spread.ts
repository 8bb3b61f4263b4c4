/**
 * Cluster selection under spread constraints (upstream `core/spreadconstraint`). Feasible
 * clusters are ranked by overflow order, score, available replicas and name; then either all
 * are taken, or the cluster constraint picks the best N that fit the replicas, or regions are
 * chosen first (the best-weighted combination that holds enough clusters) and clusters inside
 * them. Zone and provider constraints only filter (clusters must declare the field); the
 * selection then follows the cluster constraint, as upstream's.
 */
import type { ClusterObject, Placement, SpreadConstraint } from "../../karmada/types.ts";
import { replicaSchedulingType } from "./binding.ts";
import type { SpreadExplanation } from "./types.ts";

/** A feasible cluster as selection and assignment see it. */
export interface ClusterDetail {
  name: string;
  cluster: ClusterObject;
  score: number;
  overflowOrder: number;
  /** The estimator's answer: replicas the cluster can still take. */
  allocatable: number;
  /** allocatable + replicas the binding already has there. */
  available: number;
}

/** Selection failed; the message is upstream's, `spread` what was weighed. */
export class SelectionError extends Error {
  spread?: SpreadExplanation;
}

/** Overflow order ascending, score descending, available replicas descending, name ascending. */
export function compareClusters(a: ClusterDetail, b: ClusterDetail): number {
  if (a.overflowOrder !== b.overflowOrder) return a.overflowOrder - b.overflowOrder;
  if (a.score !== b.score) return b.score - a.score;
  if (a.available !== b.available) return b.available - a.available;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** "Don't care about capacity": Duplicated placements. */
export const IGNORE_CAPACITY = -1;

/** Divided + Weighted by a static list (or no preference at all): spread constraints do not apply. */
export function isStaticWeighted(placement: Placement): boolean {
  const rs = placement.replicaScheduling;
  if (!rs || replicaSchedulingType(placement) !== "Divided" || rs.replicaDivisionPreference !== "Weighted") {
    return false;
  }
  const wp = rs.weightPreference;
  return !wp || ((wp.staticWeightList?.length ?? 0) !== 0 && !wp.dynamicWeight);
}

const WEIGHT_UNIT = 1000;

/**
 * A group's (region's) score: the replicas it can serve in units of 1000 plus the average
 * score of the clusters counted, so capacity dominates and score breaks ties.
 */
export function groupScore(
  clusters: readonly ClusterDetail[],
  placement: Placement | undefined,
  replicas: number,
  groupMinGroups: number,
): number {
  if (!placement || replicaSchedulingType(placement) === "Duplicated") {
    let valid = 0;
    let sum = 0;
    for (const c of clusters) {
      if (c.available >= replicas) {
        valid++;
        sum += c.score;
      }
    }
    return valid === 0 ? 0 : valid * WEIGHT_UNIT + Math.trunc(sum / valid);
  }
  // Each group must be able to carry its share when spread over at least minGroups groups.
  // (minGroups 0 would divide by zero upstream; the webhook defaults it to 1, so do we.)
  const minGroups = groupMinGroups > 0 ? groupMinGroups : 1;
  const target = Math.ceil(replicas / minGroups);
  let clusterMinGroups = 0;
  for (const sc of placement.spreadConstraints ?? []) {
    if (sc.spreadByField === "cluster") clusterMinGroups = sc.minGroups ?? 0;
  }
  if (clusterMinGroups < minGroups) clusterMinGroups = minGroups;
  let sumAvailable = 0;
  let sumScore = 0;
  let counted = 0;
  for (const c of clusters) {
    sumAvailable += c.available;
    sumScore += c.score;
    counted++;
    if (counted >= clusterMinGroups && sumAvailable >= target) break;
  }
  if (sumAvailable < target) {
    return sumAvailable * WEIGHT_UNIT + Math.trunc(sumScore / clusters.length);
  }
  return target * WEIGHT_UNIT + Math.trunc(sumScore / counted);
}

export interface GroupInfo {
  name: string;
  /** Clusters in the group. */
  value: number;
  /** The group's score. */
  weight: number;
}

interface Path {
  id: number;
  groups: GroupInfo[];
  weight: number;
  value: number;
}

const byWeightThenName = (a: GroupInfo, b: GroupInfo): number =>
  a.weight !== b.weight ? b.weight - a.weight : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/**
 * Every combination of between `min` and `max` groups holding at least `target` clusters,
 * found depth-first over the groups sorted by size (small first), weight and name.
 */
function feasiblePaths(groups: GroupInfo[], min: number, max: number, target: number): Path[] {
  groups.sort((a, b) =>
    a.value !== b.value
      ? a.value - b.value
      : a.weight !== b.weight
        ? b.weight - a.weight
        : a.name < b.name
          ? -1
          : 1,
  );
  const paths: Path[] = [];
  const current: GroupInfo[] = [];
  let lastId = 0;
  const visit = (sum: number, begin: number): void => {
    if (sum >= target && current.length >= min && current.length <= max) {
      const chosen = [...current].sort(byWeightThenName);
      let weight = 0;
      let value = 0;
      for (const g of chosen) {
        weight += g.weight;
        value += g.value;
      }
      paths.push({ id: ++lastId, groups: chosen, weight, value });
      return;
    }
    if (current.length >= max) return;
    for (let i = begin; i < groups.length; i++) {
      current.push(groups[i]!);
      visit(sum + groups[i]!.value, i + 1);
      // When every group is needed to reach the minimum, the first branch is the only one.
      if (groups.length === min) break;
      current.pop();
    }
  };
  visit(0, 0);
  return paths;
}

/** `b` is a strict prefix of `a` (same names in order, shorter). */
function isSubPath(a: Path, b: Path): boolean {
  if (b.groups.length >= a.groups.length) return false;
  return b.groups.every((g, i) => a.groups[i]!.name === g.name);
}

/**
 * The best combination: highest weight, then value, then first found; a shorter combination
 * that is a prefix of the best wins over it (fewer groups for the same leaders).
 */
export function selectGroups(groups: GroupInfo[], min: number, max: number, target: number): GroupInfo[] {
  if (groups.length === 0) return [];
  const paths = feasiblePaths(groups, min, max, target);
  if (paths.length === 0) return [];
  if (paths.length === 1) return paths[0]!.groups;
  paths.sort((a, b) =>
    a.weight !== b.weight ? b.weight - a.weight : a.value !== b.value ? b.value - a.value : a.id - b.id,
  );
  let best = paths[0]!;
  for (let i = 1; i < paths.length; i++) {
    if (isSubPath(best, paths[i]!)) best = paths[i]!;
  }
  return best.groups;
}

export interface Selection {
  clusters: ClusterDetail[];
  spread: SpreadExplanation;
}

function constraintOf(constraints: readonly SpreadConstraint[], field: string): SpreadConstraint | undefined {
  let found: SpreadConstraint | undefined;
  // A later constraint for the same field wins, as upstream's map assignment does.
  for (const c of constraints) if ((c.spreadByField ?? "") === field) found = c;
  return found;
}

/**
 * `SelectBestClusters`: `clusters` must already be sorted with `compareClusters`.
 * `replicas` is spec.replicas; it becomes "don't care" for Duplicated placements.
 */
export function selectClusters(
  placement: Placement,
  clusters: readonly ClusterDetail[],
  replicas: number,
): Selection {
  const constraints = placement.spreadConstraints ?? [];
  if (constraints.length === 0) return { clusters: [...clusters], spread: { by: "all" } };
  if (isStaticWeighted(placement)) {
    return {
      clusters: [...clusters],
      spread: { by: "all", ignored: "static weights ignore spread constraints" },
    };
  }
  const needReplicas = replicaSchedulingType(placement) === "Duplicated" ? IGNORE_CAPACITY : replicas;
  const region = constraintOf(constraints, "region");
  if (region)
    return selectByRegion(placement, region, constraintOf(constraints, "cluster") ?? {}, clusters, replicas);
  const cluster = constraintOf(constraints, "cluster");
  if (cluster) return selectByCluster(cluster, clusters, needReplicas);
  throw new SelectionError("just support cluster and region spread constraint");
}

function selectByCluster(
  constraint: SpreadConstraint,
  clusters: readonly ClusterDetail[],
  needReplicas: number,
): Selection {
  const minGroups = constraint.minGroups ?? 0;
  const maxGroups = constraint.maxGroups ?? 0;
  if (clusters.length < minGroups) {
    throw new SelectionError("the number of feasible clusters is less than spreadConstraint.MinGroups");
  }
  const needCnt = Math.min(clusters.length, maxGroups);
  const spread: SpreadExplanation = { by: "cluster", minGroups, maxGroups };
  if (needReplicas === IGNORE_CAPACITY) return { clusters: clusters.slice(0, needCnt), spread };
  spread.needReplicas = needReplicas;
  const chosen = selectByAvailableReplicas(clusters, needCnt, needReplicas);
  if (chosen.length === 0) {
    const err = new SelectionError(`no enough resource when selecting ${needCnt} clusters`);
    err.spread = spread;
    throw err;
  }
  return { clusters: chosen, spread };
}

/**
 * The first `count` clusters; while they cannot hold `needReplicas` together, swap the lowest
 * ranked one for the unselected cluster with the most available replicas (if it has more).
 * Empty when even that is not enough.
 */
export function selectByAvailableReplicas(
  clusters: readonly ClusterDetail[],
  count: number,
  needReplicas: number,
): ClusterDetail[] {
  const chosen = clusters.slice(0, count);
  const rest = clusters.slice(count);
  const enough = (): boolean => chosen.reduce((sum, c) => sum + c.available, 0) >= needReplicas;
  for (let i = chosen.length - 1; i >= 0 && !enough(); i--) {
    let best = -1;
    let most = chosen[i]!.available;
    for (let j = 0; j < rest.length; j++) {
      if (rest[j]!.available > most) {
        best = j;
        most = rest[j]!.available;
      }
    }
    if (best === -1) continue;
    [chosen[i], rest[best]] = [rest[best]!, chosen[i]!];
  }
  return enough() ? chosen : [];
}

export interface RegionGroup {
  name: string;
  /** The region's group score. */
  score: number;
  /** Its clusters, ranked with `compareClusters`. */
  members: ClusterDetail[];
}

function selectByRegion(
  placement: Placement,
  regionConstraint: SpreadConstraint,
  clusterConstraint: SpreadConstraint,
  clusters: readonly ClusterDetail[],
  replicas: number,
): Selection {
  const byRegion = new Map<string, ClusterDetail[]>();
  for (const c of clusters) {
    const region = c.cluster.spec?.region;
    if (!region) continue;
    const members = byRegion.get(region);
    if (members) members.push(c);
    else byRegion.set(region, [c]);
  }
  const regionMin = regionConstraint.minGroups ?? 0;
  const regions = [...byRegion].map(([name, members]) => ({
    name,
    members,
    score: groupScore(members, placement, replicas, regionMin),
  }));
  const spread: SpreadExplanation = {
    by: "region",
    minGroups: clusterConstraint.minGroups ?? 0,
    maxGroups: clusterConstraint.maxGroups ?? 0,
    regions: regions
      .map((r) => ({ name: r.name, score: r.score, clusters: r.members.length }))
      .sort((a, b) => (a.name < b.name ? -1 : 1)),
  };
  try {
    const { clusters: selected, chosen } = selectBestClustersByRegion(
      regions,
      regionConstraint,
      clusterConstraint,
    );
    spread.chosenRegions = chosen;
    return { clusters: selected, spread };
  } catch (err) {
    if (err instanceof SelectionError) err.spread = spread;
    throw err;
  }
}

/**
 * Regions first: the best combination of regions within the region constraint that holds the
 * cluster constraint's minimum; then the best cluster of every chosen region, then the best
 * of the rest up to the cluster constraint's maximum.
 */
export function selectBestClustersByRegion(
  regions: readonly RegionGroup[],
  regionConstraint: SpreadConstraint,
  clusterConstraint: SpreadConstraint,
): { clusters: ClusterDetail[]; chosen: string[] } {
  const regionMin = regionConstraint.minGroups ?? 0;
  if (regions.length < regionMin) {
    throw new SelectionError("the number of feasible region is less than spreadConstraint.MinGroups");
  }
  const groups = regions.map((r) => ({ name: r.name, value: r.members.length, weight: r.score }));
  const chosen = selectGroups(
    groups,
    regionMin,
    regionConstraint.maxGroups ?? 0,
    clusterConstraint.minGroups ?? 0,
  );
  if (chosen.length === 0) {
    throw new SelectionError("the number of clusters is less than the cluster spreadConstraint.MinGroups");
  }
  const byName = new Map(regions.map((r) => [r.name, r.members]));
  const selected: ClusterDetail[] = [];
  const candidates: ClusterDetail[] = [];
  for (const g of chosen) {
    const members = byName.get(g.name)!;
    selected.push(members[0]!);
    candidates.push(...members.slice(1));
  }
  const needCnt = Math.min(candidates.length + selected.length, clusterConstraint.maxGroups ?? 0);
  const restCnt = needCnt - selected.length;
  if (restCnt > 0) {
    candidates.sort(compareClusters);
    selected.push(...candidates.slice(0, restCnt));
  }
  return { clusters: selected, chosen: chosen.map((g) => g.name) };
}
