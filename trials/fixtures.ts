/**
 * What the crash trials write: templates (Deployments, ConfigMaps, Services) in one namespace,
 * the fixed PropagationPolicies that place them by their `tier` label, and two
 * OverridePolicies whose values the trials change. A `Written` is the trial's own record of
 * one object's content (what it sent and, when acknowledged, what must be readable).
 */
import type { KubeObject } from "../src/api/meta.ts";

export const NAMESPACE = "trials";
export const MEMBERS = ["member1", "member2", "pull1"] as const;
export type Member = (typeof MEMBERS)[number];

export type Kind = "Deployment" | "ConfigMap" | "Service" | "OverridePolicy";
/**
 * dup: Deployment, Duplicated to every member, propagateDeps (mounts a `dep` ConfigMap);
 * div: Deployment, Divided over every member, application failover enabled;
 * cm: ConfigMap to member1 and member2; svc: Service to member1 and pull1;
 * dep: ConfigMap without a policy of its own, propagated as a dup Deployment's dependency.
 */
export type Tier = "dup" | "div" | "cm" | "svc" | "dep";

export const TIER_LABEL = "trials.karmada.io/tier";
export const REV_LABEL = "trials.karmada.io/rev";
/** The label op-labels adds to Deployments on member1. */
export const OVERRIDE_LABEL = "trials.karmada.io/override";
/** The ConfigMap key op-data adds to `cm` ConfigMaps on member2. */
export const OVERRIDE_KEY = "override";
export const LABEL_OVERRIDE = { name: "op-labels", cluster: "member1" } as const;
export const DATA_OVERRIDE = { name: "op-data", cluster: "member2" } as const;

/** Where each tier goes (dep: where the Deployment mounting it goes). */
export const PLACEMENT: Record<Tier, readonly Member[]> = {
  dup: MEMBERS,
  div: MEMBERS,
  cm: ["member1", "member2"],
  svc: ["member1", "pull1"],
  dep: MEMBERS,
};

export interface Written {
  kind: Kind;
  name: string;
  /** Template labels the trial set (tier, rev); a subset of what is stored. */
  labels: Record<string, string>;
  /** Deployments. */
  replicas?: number;
  /** ConfigMaps: the whole data; OverridePolicies: `{ value }`. */
  data?: Record<string, string>;
  /** dup Deployments: the ConfigMap they mount. */
  mounts?: string;
}

export const keyOf = (w: { kind: string; name: string }): string => `${w.kind}/${w.name}`;
export const tierOf = (w: Written): Tier | undefined => w.labels[TIER_LABEL] as Tier | undefined;

/** The object to send for a Written template or override policy. */
export function manifest(w: Written): KubeObject {
  const metadata = { name: w.name, namespace: NAMESPACE, labels: { ...w.labels } };
  switch (w.kind) {
    case "Deployment": {
      const app = { app: w.name };
      return {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { ...metadata, labels: { ...metadata.labels, ...app } },
        spec: {
          replicas: w.replicas ?? 1,
          selector: { matchLabels: app },
          template: {
            metadata: { labels: app },
            spec: {
              containers: [
                {
                  name: "app",
                  image: "nginx:1.25",
                  ...(w.mounts ? { volumeMounts: [{ name: "config", mountPath: "/etc/app" }] } : {}),
                },
              ],
              ...(w.mounts ? { volumes: [{ name: "config", configMap: { name: w.mounts } }] } : {}),
            },
          },
        },
      };
    }
    case "ConfigMap":
      return { apiVersion: "v1", kind: "ConfigMap", metadata, data: { ...w.data } };
    case "Service":
      return {
        apiVersion: "v1",
        kind: "Service",
        metadata,
        spec: { selector: { app: w.name }, ports: [{ name: "http", port: 80, targetPort: 8080 }] },
      };
    case "OverridePolicy":
      return overridePolicy(w.name, w.data?.value ?? "");
  }
}

const selectTier = (apiVersion: string, kind: string, tier: Tier) => ({
  apiVersion,
  kind,
  labelSelector: { matchLabels: { [TIER_LABEL]: tier } },
});

export function overridePolicy(name: string, value: string): KubeObject {
  const rule =
    name === LABEL_OVERRIDE.name
      ? {
          selectors: [selectTier("apps/v1", "Deployment", "dup"), selectTier("apps/v1", "Deployment", "div")],
          rule: {
            targetCluster: { clusterNames: [LABEL_OVERRIDE.cluster] },
            overriders: { labelsOverrider: [{ operator: "add", value: { [OVERRIDE_LABEL]: value } }] },
          },
        }
      : {
          selectors: [selectTier("v1", "ConfigMap", "cm")],
          rule: {
            targetCluster: { clusterNames: [DATA_OVERRIDE.cluster] },
            overriders: { plaintext: [{ path: `/data/${OVERRIDE_KEY}`, operator: "add", value }] },
          },
        };
  return {
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "OverridePolicy",
    metadata: { name, namespace: NAMESPACE },
    spec: { resourceSelectors: rule.selectors, overrideRules: [rule.rule] },
  };
}

/** The override value an OverridePolicy as stored carries (undefined when not ours). */
export function overrideValueOf(op: object): string | undefined {
  const spec = (op as { spec?: unknown }).spec as
    | {
        overrideRules?: Array<{
          overriders?: {
            labelsOverrider?: Array<{ value?: Record<string, string> }>;
            plaintext?: Array<{ value?: unknown }>;
          };
        }>;
      }
    | undefined;
  const overriders = spec?.overrideRules?.[0]?.overriders;
  const label = overriders?.labelsOverrider?.[0]?.value?.[OVERRIDE_LABEL];
  if (label !== undefined) return label;
  const plain = overriders?.plaintext?.[0]?.value;
  return typeof plain === "string" ? plain : undefined;
}

/** The fixed PropagationPolicies, one per tier with a policy of its own. */
export function propagationPolicies(): KubeObject[] {
  const pp = (name: string, selector: object, placement: object, extra: object = {}): KubeObject => ({
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name, namespace: NAMESPACE },
    spec: { resourceSelectors: [selector], placement, ...extra },
  });
  const names = (tier: Tier) => ({ clusterNames: [...PLACEMENT[tier]] });
  return [
    pp(
      "dup",
      selectTier("apps/v1", "Deployment", "dup"),
      { clusterAffinity: names("dup"), replicaScheduling: { replicaSchedulingType: "Duplicated" } },
      { propagateDeps: true },
    ),
    pp(
      "div",
      selectTier("apps/v1", "Deployment", "div"),
      {
        clusterAffinity: names("div"),
        replicaScheduling: {
          replicaSchedulingType: "Divided",
          replicaDivisionPreference: "Weighted",
          weightPreference: {
            staticWeightList: PLACEMENT.div.map((c) => ({ targetCluster: { clusterNames: [c] }, weight: 1 })),
          },
        },
      },
      {
        // Upstream refuses application failover without propagateDeps.
        propagateDeps: true,
        failover: {
          application: { decisionConditions: { tolerationSeconds: 60 }, purgeMode: "Gracefully" },
        },
      },
    ),
    pp("cm", selectTier("v1", "ConfigMap", "cm"), { clusterAffinity: names("cm") }),
    pp("svc", selectTier("v1", "Service", "svc"), { clusterAffinity: names("svc") }),
  ];
}
