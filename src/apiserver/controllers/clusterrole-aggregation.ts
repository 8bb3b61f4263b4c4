/**
 * The clusterrole-aggregation controller (kube-controller-manager's): a ClusterRole with an
 * `aggregationRule` gets, as its `rules`, the rules of every other ClusterRole matching one of
 * its `clusterRoleSelectors` (in name order, duplicates dropped). Any ClusterRole change
 * re-checks every aggregated role; there are few of them.
 */
import { isObject, type StoredObject } from "../../api/meta.ts";
import { fromLabelSelector, type LabelSelector, matches } from "../../machinery/labels.ts";
import { rulesOf } from "../authz/rules.ts";
import type { ServerContext } from "../context.ts";
import { decodeStored } from "../objects.ts";
import { storagePrefix } from "../resource-type.ts";
import { controllerQueue, followKeys, unlessGoneOrChanged } from "./follow.ts";
import { systemWriter } from "./writer.ts";

function selectorsOf(role: StoredObject): LabelSelector[] | undefined {
  const rule = role.aggregationRule;
  if (!isObject(rule)) return undefined;
  const selectors = rule.clusterRoleSelectors;
  return Array.isArray(selectors) ? (selectors.filter(isObject) as LabelSelector[]) : [];
}

export function startClusterRoleAggregationController(server: ServerContext): () => void {
  const rt = server.registry.get("rbac.authorization.k8s.io", "v1", "clusterroles")!;
  const writer = systemWriter(server, "clusterrole-aggregation-controller");
  const prefix = storagePrefix(rt);
  /** Names of the aggregated roles seen. */
  const aggregated = new Set<string>();

  const reconcile = async (name: string): Promise<undefined> => {
    const { kvs } = await server.store.list(prefix);
    const roles = kvs.map((kv) => decodeStored(rt, kv));
    const role = roles.find((r) => r.metadata.name === name);
    const selectors = role ? selectorsOf(role) : undefined;
    if (!role || !selectors) {
      aggregated.delete(name);
      return undefined;
    }
    const parsed = selectors.map((sel) => fromLabelSelector(sel));
    const rules: unknown[] = [];
    const seen = new Set<string>();
    const sources = roles
      .filter((r) => r.metadata.name !== name && parsed.some((sel) => matches(sel, r.metadata.labels)))
      .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
    for (const source of sources) {
      for (const rule of rulesOf(source)) {
        const key = JSON.stringify(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(rule);
      }
    }
    if (JSON.stringify(rulesOf(role)) === JSON.stringify(rules)) return undefined;
    await writer.change(rt, role, (cur) => ({ ...cur, rules })).catch(unlessGoneOrChanged);
    return undefined;
  };

  const queue = controllerQueue(server, "cluster role aggregation", reconcile);
  const onRole = (name: string, value: string | undefined): void => {
    if (value?.includes('"aggregationRule"')) aggregated.add(name);
    // Any role may be a source of any aggregated role.
    for (const a of aggregated) queue.add(a);
  };
  const following = followKeys(server, prefix, "clusterrole-aggregation", onRole);
  return () => {
    following.stop();
    queue.stop();
  };
}
