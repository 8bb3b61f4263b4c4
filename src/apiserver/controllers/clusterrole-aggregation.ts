/**
 * The clusterrole-aggregation controller (kube-controller-manager's): a ClusterRole with an
 * `aggregationRule` gets, as its `rules`, the rules of every other ClusterRole matching one of
 * its `clusterRoleSelectors` (in name order, duplicates dropped). Any ClusterRole change
 * re-checks every aggregated role; there are few of them.
 */
import { isObject, type StoredObject } from "../../api/meta.ts";
import { deepEqual } from "../../machinery/equality.ts";
import { fromLabelSelector, type LabelSelector, matches } from "../../machinery/labels.ts";
import { rulesOf } from "../authz/rules.ts";
import type { ServerContext } from "../context.ts";
import { decodeStored } from "../objects.ts";
import { storagePrefix } from "../resource-type.ts";
import { runStoreController, unlessGoneOrChanged } from "./follow.ts";
import { systemWriter } from "./writer.ts";

function selectorsOf(role: StoredObject): LabelSelector[] | undefined {
  const rule = role.aggregationRule;
  if (!isObject(rule)) return undefined;
  const selectors = rule.clusterRoleSelectors;
  return Array.isArray(selectors) ? (selectors.filter(isObject) as LabelSelector[]) : [];
}

/** An aggregated role's rules: its sources' rules in source-name order, duplicates dropped. */
function aggregatedRules(role: StoredObject, selectors: LabelSelector[], roles: StoredObject[]): unknown[] {
  const parsed = selectors.map((sel) => fromLabelSelector(sel));
  const rules: unknown[] = [];
  const seen = new Set<string>();
  const sources = roles
    .filter((r) => r !== role && parsed.some((sel) => matches(sel, r.metadata.labels)))
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  for (const source of sources) {
    for (const rule of rulesOf(source)) {
      const key = JSON.stringify(rule);
      if (seen.has(key)) continue;
      seen.add(key);
      rules.push(rule);
    }
  }
  return rules;
}

export function startClusterRoleAggregationController(server: ServerContext): () => void {
  const rt = server.registry.get("rbac.authorization.k8s.io", "v1", "clusterroles")!;
  const writer = systemWriter(server, "clusterrole-aggregation-controller");
  const prefix = storagePrefix(rt);

  // One key for all: any role may be a source of any aggregated role, so each pass lists the
  // roles once and brings every aggregated role up to date; a burst of changes is one pass.
  const reconcile = async (): Promise<undefined> => {
    const { kvs } = await server.store.list(prefix);
    const roles = kvs.map((kv) => decodeStored(rt, kv));
    for (const role of roles) {
      const selectors = selectorsOf(role);
      if (!selectors) continue;
      const rules = aggregatedRules(role, selectors, roles);
      if (deepEqual(rulesOf(role), rules)) continue;
      await writer.change(rt, role, (cur) => ({ ...cur, rules })).catch(unlessGoneOrChanged);
    }
    return undefined;
  };

  return runStoreController(server, {
    name: "clusterrole-aggregation",
    sources: [{ prefix, keys: () => ["all"] }],
    reconcile,
  });
}
