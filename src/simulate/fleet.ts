/**
 * `loadFleet`: the snapshot a what-if starts from, read through the caller's own client (so
 * with the caller's identity and rights; nothing is written). Clusters, bindings and
 * propagation policies must be readable; override policies, interpreter customizations and
 * webhook configurations the caller may not list are left out with a warning (the simulation
 * is then less exact, and says so).
 */
import type { StoredObject } from "../api/meta.ts";
import { type Client, RESOURCES, type ResourceRef } from "../client/client.ts";
import type { Binding } from "../karmada/bindings.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { ClusterObject } from "../karmada/types.ts";
import { isForbidden, isNotFound } from "../machinery/errors.ts";
import type { Fleet, Policy } from "./types.ts";

async function listAll(client: Pick<Client, "list">, ref: ResourceRef): Promise<StoredObject[]> {
  const items: StoredObject[] = [];
  let token: string | undefined;
  // Pages of 500, as kubectl reads; a bound on pages keeps a misbehaving server from looping us.
  for (let page = 0; page < 10_000; page++) {
    const list = await client.list(ref, undefined, { limit: 500, ...(token ? { continue: token } : {}) });
    items.push(...list.items);
    token = list.metadata.continue;
    if (!token) return items;
  }
  throw new Error(`listing ${ref.resource} did not end after 10000 pages`);
}

/** Reads the fleet; throws the API error when a required kind cannot be listed. */
export async function loadFleet(client: Pick<Client, "list">): Promise<Fleet> {
  const warnings: string[] = [];
  const optional = async (ref: ResourceRef, what: string): Promise<StoredObject[]> => {
    try {
      return await listAll(client, ref);
    } catch (err) {
      if (!isForbidden(err) && !isNotFound(err)) throw err;
      warnings.push(
        `${what} could not be read (${(err as Error).message}); the simulation goes on without them`,
      );
      return [];
    }
  };
  const [clusters, rbs, crbs, pps, cpps] = await Promise.all([
    listAll(client, RESOURCES.clusters),
    listAll(client, KARMADA.resourceBindings),
    listAll(client, KARMADA.clusterResourceBindings),
    listAll(client, KARMADA.propagationPolicies),
    listAll(client, KARMADA.clusterPropagationPolicies),
  ]);
  const [ops, cops, rics, riwcs] = await Promise.all([
    optional(KARMADA.overridePolicies, "OverridePolicies"),
    optional(KARMADA.clusterOverridePolicies, "ClusterOverridePolicies"),
    optional(KARMADA.resourceInterpreterCustomizations, "ResourceInterpreterCustomizations"),
    optional(KARMADA.resourceInterpreterWebhookConfigurations, "ResourceInterpreterWebhookConfigurations"),
  ]);
  return {
    clusters: clusters as ClusterObject[],
    resourceBindings: rbs as Binding[],
    clusterResourceBindings: crbs as Binding[],
    propagationPolicies: pps as Policy[],
    clusterPropagationPolicies: cpps as Policy[],
    overridePolicies: ops,
    clusterOverridePolicies: cops,
    customizations: rics,
    webhookConfigurations: riwcs,
    warnings,
  };
}
