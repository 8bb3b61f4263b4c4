/**
 * The templates and policies of the flapping trials: groups of Deployments and ConfigMaps,
 * each group propagated by its own PropagationPolicy with its own cluster tolerations and
 * failover behaviour, and what the oracle may allow for each.
 */
import type { KubeObject } from "../src/api/meta.ts";
import { type Client, RESOURCES, type ResourceRef } from "../src/client/client.ts";
import { TAINT_NOT_READY, TAINT_UNREACHABLE } from "../src/controllers/cluster.ts";
import { KARMADA } from "../src/karmada/resources.ts";
import { isAlreadyExists } from "../src/machinery/errors.ts";
import type { Allowance } from "./flapping-oracle.ts";

export interface Group {
  /** The policy's name and the templates' `tier` label. */
  name: string;
  /**
   * The NoExecute tolerations of the policy: seconds, `forever` (no seconds), or `default`
   * (none given: admission adds 300 s each, as upstream v1.12).
   */
  tolerations: number | "forever" | "default";
  /** `spec.failover.cluster.purgeMode`, if the policy has cluster failover behaviour. */
  purgeMode?: "Directly" | "Gracefully";
  clusters: string[];
  deployments: number;
  configMaps: number;
}

/** The toleration seconds admission gives a policy without tolerations. */
export const DEFAULT_TOLERATION_SECONDS = 300;

export function allowanceOf(group: Group, kind: string): Allowance {
  if (kind !== "Deployment") return { kind: "configuration" };
  const t = group.tolerations;
  return {
    kind: "workload",
    tolerationSeconds: t === "forever" ? undefined : t === "default" ? DEFAULT_TOLERATION_SECONDS : t,
  };
}

export function policyOf(namespace: string, g: Group): KubeObject {
  const tolerations =
    g.tolerations === "default"
      ? undefined
      : [TAINT_NOT_READY, TAINT_UNREACHABLE].map((key) => ({
          key,
          operator: "Exists",
          effect: "NoExecute",
          ...(g.tolerations === "forever" ? {} : { tolerationSeconds: g.tolerations }),
        }));
  return {
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name: g.name, namespace },
    spec: {
      resourceSelectors: [
        { apiVersion: "apps/v1", kind: "Deployment", labelSelector: { matchLabels: { tier: g.name } } },
        { apiVersion: "v1", kind: "ConfigMap", labelSelector: { matchLabels: { tier: g.name } } },
      ],
      placement: {
        clusterAffinity: { clusterNames: g.clusters },
        replicaScheduling: { replicaSchedulingType: "Duplicated" },
        ...(tolerations ? { clusterTolerations: tolerations } : {}),
      },
      ...(g.purgeMode ? { failover: { cluster: { purgeMode: g.purgeMode } } } : {}),
    },
  };
}

export function deploymentOf(namespace: string, name: string, tier: string, replicas = 1): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace, labels: { tier, app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            { name: "app", image: "nginx:1.27", resources: { requests: { cpu: "10m", memory: "16Mi" } } },
          ],
        },
      },
    },
  };
}

export function configMapOf(namespace: string, name: string, tier: string, value = "1"): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels: { tier } },
    data: { setting: value },
  };
}

/** The templates of a group: `<group>-deploy-<i>` and `<group>-config-<i>`. */
export function templatesOf(namespace: string, g: Group): KubeObject[] {
  return [
    ...Array.from({ length: g.deployments }, (_, i) =>
      deploymentOf(namespace, `${g.name}-deploy-${i}`, g.name),
    ),
    ...Array.from({ length: g.configMaps }, (_, i) =>
      configMapOf(namespace, `${g.name}-config-${i}`, g.name),
    ),
  ];
}

async function createOrKeep(client: Client, obj: KubeObject, res: ResourceRef): Promise<void> {
  try {
    await client.create(res, obj);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/** Creates the namespace, the groups' policies and their templates. */
export async function createGroups(
  client: Client,
  namespace: string,
  groups: readonly Group[],
): Promise<void> {
  await createOrKeep(
    client,
    { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } },
    RESOURCES.namespaces,
  );
  for (const g of groups) await createOrKeep(client, policyOf(namespace, g), KARMADA.propagationPolicies);
  for (const g of groups) {
    for (const t of templatesOf(namespace, g)) {
      await createOrKeep(client, t, t.kind === "Deployment" ? RESOURCES.deployments : RESOURCES.configmaps);
    }
  }
}

/** Every template of the groups, as `Kind namespace/name`, with the clusters it goes to. */
export function expectedPlacement(namespace: string, groups: readonly Group[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const g of groups) {
    for (const t of templatesOf(namespace, g))
      out.set(`${t.kind} ${namespace}/${t.metadata?.name}`, g.clusters);
  }
  return out;
}

/** The group a template (`Kind name`) belongs to, by its name's prefix. */
export function groupOfTemplate(groups: readonly Group[], name: string): Group | undefined {
  return groups.find((g) => name.startsWith(`${g.name}-deploy-`) || name.startsWith(`${g.name}-config-`));
}
