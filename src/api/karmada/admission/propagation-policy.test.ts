import { describe, expect, it } from "vitest";
import { validateObject } from "../../../machinery/structural.ts";
import type { StoredObject } from "../../meta.ts";
import { clusterPropagationPolicyCrd, propagationPolicyCrd } from "../policy.ts";
import { defaulted, loadSample, rendered, testContext } from "./admission.fixtures.ts";
import {
  clusterPropagationPolicyDenial,
  mutateClusterPropagationPolicy,
  mutatePropagationPolicy,
  propagationPolicyDenial,
  validateClusterPropagationPolicy,
  validatePropagationPolicy,
} from "./propagation-policy.ts";

function pp(spec: Record<string, unknown>, labels: Record<string, string> = {}): StoredObject {
  return defaulted(propagationPolicyCrd, {
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name: "p", namespace: "default", labels },
    spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }], ...spec },
  });
}

function cpp(spec: Record<string, unknown>): StoredObject {
  return defaulted(clusterPropagationPolicyCrd, {
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "ClusterPropagationPolicy",
    metadata: { name: "c" },
    spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }], ...spec },
  });
}

/** Created through the webhook: mutated as on CREATE. */
function created(policy: StoredObject): StoredObject {
  if (policy.kind === "PropagationPolicy") mutatePropagationPolicy(policy, undefined, testContext());
  else mutateClusterPropagationPolicy(policy, undefined, testContext());
  return policy;
}

// The example of the reference (§2.7), a policy using every placement feature.
const REFERENCE_EXAMPLE = {
  resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }],
  propagateDeps: true,
  priority: 0,
  preemption: "Never",
  conflictResolution: "Abort",
  schedulerName: "default-scheduler",
  placement: {
    clusterAffinity: {
      clusterNames: ["member1", "member2"],
      exclude: ["member3"],
      fieldSelector: { matchExpressions: [{ key: "region", operator: "In", values: ["us-east"] }] },
    },
    clusterTolerations: [
      {
        key: "cluster.karmada.io/not-ready",
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 300,
      },
    ],
    spreadConstraints: [{ spreadByField: "cluster", maxGroups: 2, minGroups: 1 }],
    replicaScheduling: {
      replicaSchedulingType: "Divided",
      replicaDivisionPreference: "Weighted",
      weightPreference: {
        staticWeightList: [
          { targetCluster: { clusterNames: ["member1"] }, weight: 1 },
          { targetCluster: { clusterNames: ["member2"] }, weight: 2 },
        ],
      },
    },
  },
  failover: {
    application: {
      decisionConditions: { tolerationSeconds: 300 },
      purgeMode: "Gracefully",
      gracePeriodSeconds: 600,
      statePreservation: {
        rules: [{ aliasLabelName: "failover.karmada.io/job-id", jsonPath: "{.jobStatus.jobID}" }],
      },
    },
  },
};

describe("valid policies pass after mutation", () => {
  const cases: Array<[string, StoredObject]> = [
    ["nginx sample", defaulted(propagationPolicyCrd, { ...loadSample("nginx/propagationpolicy.yaml")[0]! })],
    [
      "guestbook sample",
      defaulted(propagationPolicyCrd, { ...loadSample("guestbook/guestbooks-propagationpolicy.yaml")[0]! }),
    ],
    ["reference example", pp(REFERENCE_EXAMPLE)],
  ];
  it.each(cases)("%s", (_name, policy) => {
    policy.metadata.namespace = "default";
    created(policy);
    expect(validateObject(policy, propagationPolicyCrd.spec.versions[0]!.schema!.openAPIV3Schema)).toEqual(
      [],
    );
    expect(propagationPolicyDenial(policy, undefined)).toBeUndefined();
    expect(validatePropagationPolicy(policy)).toEqual([]);
  });

  it("guestbook ClusterPropagationPolicy sample", () => {
    const policy = created(
      defaulted(clusterPropagationPolicyCrd, {
        ...loadSample("guestbook/guestbooks-clusterpropagationpolicy.yaml")[0]!,
      }),
    );
    expect(clusterPropagationPolicyDenial(policy, undefined)).toBeUndefined();
    expect(validateClusterPropagationPolicy(policy)).toEqual([]);
  });

  it("leaves an already-defaulted policy unchanged on update", () => {
    const policy = created(pp(REFERENCE_EXAMPLE));
    const before = structuredClone(policy);
    mutatePropagationPolicy(policy, before, testContext());
    expect(policy).toEqual(before);
  });
});

describe("mutation", () => {
  it("stamps a permanent id and the controller finalizer on create only", () => {
    const policy = pp({});
    mutatePropagationPolicy(policy, undefined, testContext());
    expect(policy.metadata.labels).toEqual({ "propagationpolicy.karmada.io/permanent-id": "uid-1" });
    expect(policy.metadata.finalizers).toEqual(["karmada.io/propagation-policy-controller"]);
    const update = pp({}, { "propagationpolicy.karmada.io/permanent-id": "uid-1" });
    mutatePropagationPolicy(update, policy, testContext());
    expect(update.metadata.labels).toEqual({ "propagationpolicy.karmada.io/permanent-id": "uid-1" });
    expect(update.metadata.finalizers).toBeUndefined();
  });

  it("uses the cluster-scoped label and finalizer for a ClusterPropagationPolicy, and keeps selector namespaces empty", () => {
    const policy = cpp({});
    mutateClusterPropagationPolicy(policy, undefined, testContext());
    expect(policy.metadata.labels).toEqual({ "clusterpropagationpolicy.karmada.io/permanent-id": "uid-1" });
    expect(policy.metadata.finalizers).toEqual(["karmada.io/cluster-propagation-policy-controller"]);
    expect(
      (policy.spec as { resourceSelectors: Array<{ namespace?: string }> }).resourceSelectors[0]!.namespace,
    ).toBeUndefined();
  });

  it("keeps existing finalizers and does not repeat its own", () => {
    const policy = pp({});
    policy.metadata.finalizers = ["other", "karmada.io/propagation-policy-controller"];
    mutatePropagationPolicy(policy, undefined, testContext());
    expect(policy.metadata.finalizers).toEqual(["other", "karmada.io/propagation-policy-controller"]);
  });

  const effects: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    [
      "fills empty selector namespaces with the policy's",
      {
        resourceSelectors: [
          { apiVersion: "v1", kind: "ConfigMap" },
          { apiVersion: "v1", kind: "Secret", namespace: "default" },
        ],
      },
      {
        resourceSelectors: [
          { apiVersion: "v1", kind: "ConfigMap", namespace: "default" },
          { apiVersion: "v1", kind: "Secret", namespace: "default" },
        ],
      },
    ],
    [
      "spreads by cluster with at least one group by default",
      { placement: { spreadConstraints: [{ maxGroups: 3 }, { spreadByLabel: "zone-label", minGroups: 2 }] } },
      {
        placement: {
          spreadConstraints: [
            { spreadByField: "cluster", maxGroups: 3, minGroups: 1 },
            { spreadByLabel: "zone-label", minGroups: 2 },
          ],
        },
      },
    ],
    [
      "propagates dependencies of ServiceImports",
      {
        resourceSelectors: [
          { apiVersion: "multicluster.x-k8s.io/v1alpha1", kind: "ServiceImport", name: "s" },
        ],
      },
      { propagateDeps: true },
    ],
    [
      "splits Divided replicas by weight",
      { placement: { replicaScheduling: { replicaSchedulingType: "Divided" } } },
      {
        placement: {
          replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted" },
        },
      },
    ],
    [
      "gives Gracefully purged applications 600 seconds",
      { propagateDeps: true, failover: { application: { decisionConditions: {} } } },
      {
        failover: {
          application: {
            decisionConditions: { tolerationSeconds: 300 },
            purgeMode: "Gracefully",
            gracePeriodSeconds: 600,
          },
        },
      },
    ],
    [
      "v1.12's Graciously is Gracefully: 600 seconds, the name kept as given",
      { propagateDeps: true, failover: { application: { decisionConditions: {}, purgeMode: "Graciously" } } },
      { failover: { application: { purgeMode: "Graciously", gracePeriodSeconds: 600 } } },
    ],
  ];
  it.each(effects)("%s", (_name, spec, expected) => {
    const policy = pp(spec);
    mutatePropagationPolicy(policy, undefined, testContext());
    expect(policy.spec).toMatchObject(expected);
  });

  it("does not touch Duplicated replicas, explicit preferences or other purge modes", () => {
    const policy = pp({
      placement: { replicaScheduling: { replicaSchedulingType: "Duplicated" } },
      propagateDeps: true,
      failover: { application: { decisionConditions: {}, purgeMode: "Directly" } },
    });
    mutatePropagationPolicy(policy, undefined, testContext());
    const spec = policy.spec as Record<string, Record<string, Record<string, unknown>>>;
    expect(spec.placement!.replicaScheduling).toEqual({ replicaSchedulingType: "Duplicated" });
    expect(spec.failover!.application!.gracePeriodSeconds).toBeUndefined();
  });
});

describe("refusals", () => {
  const id = { "propagationpolicy.karmada.io/permanent-id": "uid-1" };
  const cases: Array<[string, StoredObject, StoredObject | undefined, string]> = [
    [
      "schedulerName changed",
      pp({ schedulerName: "other" }, id),
      pp({}, id),
      "the schedulerName should not be updated",
    ],
    [
      "permanent id changed",
      pp({}, { "propagationpolicy.karmada.io/permanent-id": "uid-2" }),
      pp({}, id),
      "label propagationpolicy.karmada.io/permanent-id is immutable, it can only be set by the system during creation",
    ],
    [
      "permanent id missing",
      pp({}),
      undefined,
      "label propagationpolicy.karmada.io/permanent-id is required, it should be set by the mutating admission webhook during creation",
    ],
  ];
  it.each(cases)("%s", (_name, policy, old, message) => {
    expect(propagationPolicyDenial(policy, old)).toBe(message);
  });

  it("names the cluster-scoped label for a ClusterPropagationPolicy", () => {
    const old = created(cpp({}));
    const update = structuredClone(old);
    update.metadata.labels = { "clusterpropagationpolicy.karmada.io/permanent-id": "forged" };
    expect(clusterPropagationPolicyDenial(update, old)).toBe(
      "label clusterpropagationpolicy.karmada.io/permanent-id is immutable, it can only be set by the system during creation",
    );
    expect(clusterPropagationPolicyDenial(cpp({}), undefined)).toBe(
      "label clusterpropagationpolicy.karmada.io/permanent-id is required, it should be set by the mutating admission webhook during creation",
    );
  });
});

describe("spec rules", () => {
  const namespaced = (spec: Record<string, unknown>) => {
    const policy = pp(spec);
    // Selectors already carry the namespace (the mutating webhook fills it in).
    for (const s of (policy.spec as { resourceSelectors: Array<Record<string, unknown>> })
      .resourceSelectors) {
      s.namespace ??= "default";
    }
    return policy;
  };
  const affinity = { clusterNames: ["m1"] };
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    [
      "clusterAffinity with clusterAffinities",
      { placement: { clusterAffinity: affinity, clusterAffinities: [{ affinityName: "a", ...affinity }] } },
      [
        'spec.placement: Invalid value: {"clusterAffinity":{"clusterNames":["m1"]},"clusterAffinities":[{"affinityName":"a","clusterNames":["m1"]}]}: clusterAffinities cannot co-exist with clusterAffinity',
      ],
    ],
    [
      "field selector key",
      {
        placement: {
          clusterAffinity: {
            fieldSelector: { matchExpressions: [{ key: "name", operator: "In", values: ["x"] }] },
          },
        },
      },
      [
        'spec.placement.clusterAffinity.fieldSelector: Invalid value: {"matchExpressions":[{"key":"name","operator":"In","values":["x"]}]}: unsupported key "name", must be provider, region, or zone',
      ],
    ],
    [
      "field selector operator",
      {
        placement: {
          clusterAffinity: { fieldSelector: { matchExpressions: [{ key: "zone", operator: "Exists" }] } },
        },
      },
      [
        'spec.placement.clusterAffinity.fieldSelector: Invalid value: {"matchExpressions":[{"key":"zone","operator":"Exists"}]}: unsupported operator "Exists", must be In or NotIn',
      ],
    ],
    [
      "affinity name not a label key",
      { placement: { clusterAffinities: [{ affinityName: "-bad", ...affinity }] } },
      [
        "spec.placement.clusterAffinities[0]: Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
    [
      "duplicate affinity names",
      { placement: { clusterAffinities: [{ affinityName: "a" }, { affinityName: "a" }] } },
      [
        'spec.placement.clusterAffinities: Invalid value: [{"affinityName":"a"},{"affinityName":"a"}]: each affinity term in a policy must have a unique name',
      ],
    ],
    [
      "overflow affinities without dynamic or aggregated scheduling, and without an inline affinity",
      {
        placement: {
          clusterAffinities: [{ affinityName: "a", overflowAffinities: [{ affinityName: "b" }] }],
        },
      },
      [
        'spec.placement.clusterAffinities[0].overflowAffinities: Invalid value: [{"affinityName":"b"}]: overflowAffinities can only be used together with dynamic weight or aggregated scheduling',
        'spec.placement.clusterAffinities[0].overflowAffinities: Invalid value: [{"affinityName":"b"}]: overflowAffinities can only be used together with the inline ClusterAffinity',
      ],
    ],
    [
      "overflow name repeating the primary name",
      {
        placement: {
          replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Aggregated" },
          clusterAffinities: [
            {
              affinityName: "a",
              ...affinity,
              overflowAffinities: [{ affinityName: "a", clusterNames: ["m2"] }],
            },
          ],
        },
      },
      [
        'spec.placement.clusterAffinities[0].overflowAffinities[0].affinityName: Invalid value: "a": overflow affinity name must be unique and must not duplicate the primary group\'s affinityName',
      ],
    ],
    [
      "spreadByField with spreadByLabel",
      { placement: { spreadConstraints: [{ spreadByField: "cluster", spreadByLabel: "l", minGroups: 1 }] } },
      [
        'spec.placement.spreadConstraints[0]: Invalid value: {"spreadByField":"cluster","spreadByLabel":"l","minGroups":1}: spreadByLabel should not co-exist with spreadByField',
      ],
    ],
    [
      "negative group counts and max below min",
      {
        placement: {
          spreadConstraints: [
            { spreadByLabel: "l", minGroups: -1, maxGroups: -1 },
            { spreadByLabel: "m", minGroups: 3, maxGroups: 2 },
          ],
        },
      },
      [
        'spec.placement.spreadConstraints[0]: Invalid value: {"spreadByLabel":"l","minGroups":-1,"maxGroups":-1}: minGroups lower than 0 is not allowed',
        'spec.placement.spreadConstraints[0]: Invalid value: {"spreadByLabel":"l","minGroups":-1,"maxGroups":-1}: maxGroups lower than 0 is not allowed',
        'spec.placement.spreadConstraints[1]: Invalid value: {"spreadByLabel":"m","minGroups":3,"maxGroups":2}: maxGroups lower than minGroups is not allowed',
      ],
    ],
    [
      "repeated spread field, reported once, and no cluster constraint",
      {
        placement: {
          spreadConstraints: [
            { spreadByField: "region", minGroups: 1 },
            { spreadByField: "region", minGroups: 1 },
            { spreadByField: "region", minGroups: 1 },
          ],
        },
      },
      [
        `spec.placement.spreadConstraints: Invalid value: ${JSON.stringify(Array(3).fill({ spreadByField: "region", minGroups: 1 }))}: multiple region spread constraints are not allowed`,
        `spec.placement.spreadConstraints: Invalid value: ${JSON.stringify(Array(3).fill({ spreadByField: "region", minGroups: 1 }))}: the cluster spread constraint must be enabled in one of the constraints in case of SpreadByField is enabled`,
      ],
    ],
    [
      "workload affinity keys",
      {
        placement: {
          workloadAffinity: {
            affinity: { groupByLabelKey: "app" },
            antiAffinity: { groupByLabelKey: "app" },
          },
        },
      },
      [
        'spec.placement.workloadAffinity: Invalid value: {"affinity":{"groupByLabelKey":"app"},"antiAffinity":{"groupByLabelKey":"app"}}: affinity and antiAffinity must not use the same groupByLabelKey',
      ],
    ],
    [
      "workload affinity key not a label key",
      { placement: { workloadAffinity: { antiAffinity: { groupByLabelKey: "a/b/c" } } } },
      [
        "spec.placement.workloadAffinity.antiAffinity.groupByLabelKey: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    ],
    [
      "Gt toleration",
      { placement: { clusterTolerations: [{ key: "k", operator: "Gt", value: "1" }] } },
      [
        'spec.placement.clusterTolerations[0].operator: Unsupported value: "Gt": supported values: "", "Exists", "Equal"',
      ],
    ],
    [
      "application failover without propagateDeps",
      { failover: { application: { decisionConditions: { tolerationSeconds: 1 }, purgeMode: "Never" } } },
      ["spec.propagateDeps: Invalid value: false: application failover is set, propagateDeps must be true"],
    ],
    [
      "negative toleration seconds",
      {
        propagateDeps: true,
        failover: { application: { decisionConditions: { tolerationSeconds: -1 }, purgeMode: "Never" } },
      },
      [
        "spec.failover.application.decisionConditions.tolerationSeconds: Invalid value: -1: must be greater than or equal to 0",
      ],
    ],
    [
      "grace period with another purge mode",
      {
        propagateDeps: true,
        failover: {
          application: {
            decisionConditions: { tolerationSeconds: 1 },
            purgeMode: "Directly",
            gracePeriodSeconds: 10,
          },
        },
      },
      [
        "spec.failover.application.gracePeriodSeconds: Invalid value: 10: only takes effect when purgeMode is gracefully",
      ],
    ],
    [
      "grace period with v1.12's Immediately",
      {
        propagateDeps: true,
        failover: {
          application: {
            decisionConditions: { tolerationSeconds: 1 },
            purgeMode: "Immediately",
            gracePeriodSeconds: 10,
          },
        },
      },
      [
        "spec.failover.application.gracePeriodSeconds: Invalid value: 10: only takes effect when purgeMode is gracefully",
      ],
    ],
    [
      "Gracefully without a grace period",
      {
        propagateDeps: true,
        failover: { application: { decisionConditions: { tolerationSeconds: 1 }, purgeMode: "Gracefully" } },
      },
      [
        "spec.failover.application.gracePeriodSeconds: Invalid value: null: should not be empty when purgeMode is gracefully",
      ],
    ],
    [
      "non-positive grace period",
      {
        propagateDeps: true,
        failover: {
          application: {
            decisionConditions: { tolerationSeconds: 1 },
            purgeMode: "Gracefully",
            gracePeriodSeconds: 0,
          },
        },
      },
      ["spec.failover.application.gracePeriodSeconds: Invalid value: 0: must be greater than 0"],
    ],
    [
      "state preservation alias not a label name",
      {
        propagateDeps: true,
        failover: {
          application: {
            decisionConditions: { tolerationSeconds: 1 },
            purgeMode: "Never",
            statePreservation: { rules: [{ aliasLabelName: "", jsonPath: "{.a}" }] },
          },
          cluster: { statePreservation: { rules: [{ aliasLabelName: "x/", jsonPath: "{.a}" }] } },
        },
      },
      [
        'spec.failover.application.statePreservation.rules[0].aliasLabelName: Invalid value: "": name part must be non-empty',
        "spec.failover.application.statePreservation.rules[0].aliasLabelName: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        'spec.failover.cluster.statePreservation.rules[0].aliasLabelName: Invalid value: "x/": name part must be non-empty',
        "spec.failover.cluster.statePreservation.rules[0].aliasLabelName: Invalid value: \"x/\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
    [
      "selector in another namespace",
      { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "other" }] },
      [
        'spec.resourceSelectors[0].namespace: Invalid value: "other": namespace of resource selector must be the same as the namespace of the policy',
      ],
    ],
    [
      "preemption with a nameless selector",
      {
        preemption: "Always",
        resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "default" }],
      },
      [
        'spec.resourceSelectors[0].name: Invalid value: "": name cannot be empty if preemption is Always, the empty name may cause unexpected resources preemption',
      ],
    ],
    [
      "suspension of all and some clusters",
      { suspension: { dispatching: true, dispatchingOnClusters: { clusterNames: ["m1"] } } },
      [
        'spec.suspension.suspension: Invalid value: {"dispatching":true,"dispatchingOnClusters":{"clusterNames":["m1"]}}: suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames',
      ],
    ],
  ];
  it.each(cases)("%s", (_name, spec, expected) => {
    expect(rendered(validatePropagationPolicy(namespaced(spec)))).toEqual(expected);
  });

  it("lets overflow groups through with dynamic weights", () => {
    const spec = {
      placement: {
        replicaScheduling: {
          replicaSchedulingType: "Divided",
          replicaDivisionPreference: "Weighted",
          weightPreference: { dynamicWeight: "AvailableReplicas" },
        },
        clusterAffinities: [
          {
            affinityName: "a",
            ...affinity,
            overflowAffinities: [{ affinityName: "b", clusterNames: ["m2"] }],
          },
        ],
      },
    };
    expect(validatePropagationPolicy(namespaced(spec))).toEqual([]);
  });

  it("does not check selector namespaces of a ClusterPropagationPolicy", () => {
    const policy = cpp({
      resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "anywhere" }],
    });
    expect(validateClusterPropagationPolicy(policy)).toEqual([]);
  });
});

describe("default cluster tolerations (upstream v1.12's webhook)", () => {
  const notReady = (seconds: number) => ({
    key: "cluster.karmada.io/not-ready",
    operator: "Exists",
    effect: "NoExecute",
    tolerationSeconds: seconds,
  });
  const unreachable = (seconds: number) => ({
    key: "cluster.karmada.io/unreachable",
    operator: "Exists",
    effect: "NoExecute",
    tolerationSeconds: seconds,
  });
  const tolerationsOf = (policy: StoredObject) =>
    (policy.spec as { placement?: { clusterTolerations?: unknown[] } }).placement?.clusterTolerations;

  const cases: Array<[string, Record<string, unknown>, unknown[]]> = [
    ["a policy without placement gets both, 300 s", {}, [notReady(300), unreachable(300)]],
    [
      "appended after the policy's own",
      { placement: { clusterTolerations: [{ key: "fail-test", operator: "Exists", effect: "NoExecute" }] } },
      [{ key: "fail-test", operator: "Exists", effect: "NoExecute" }, notReady(300), unreachable(300)],
    ],
    [
      "a toleration with the same key, operator and effect wins, its seconds kept",
      { placement: { clusterTolerations: [notReady(2)] } },
      [notReady(2), unreachable(300)],
    ],
    [
      "a matching toleration without seconds is kept too (tolerated for good)",
      {
        placement: {
          clusterTolerations: [
            { key: "cluster.karmada.io/unreachable", operator: "Exists", effect: "NoExecute" },
          ],
        },
      },
      [{ key: "cluster.karmada.io/unreachable", operator: "Exists", effect: "NoExecute" }, notReady(300)],
    ],
    [
      "another operator or effect is not the same toleration (MatchToleration)",
      {
        placement: {
          clusterTolerations: [
            { key: "cluster.karmada.io/not-ready", operator: "Exists", effect: "NoSchedule" },
            { key: "cluster.karmada.io/unreachable", effect: "NoExecute" },
          ],
        },
      },
      [
        { key: "cluster.karmada.io/not-ready", operator: "Exists", effect: "NoSchedule" },
        { key: "cluster.karmada.io/unreachable", effect: "NoExecute" },
        notReady(300),
        unreachable(300),
      ],
    ],
  ];
  it.each(cases)("%s", (_name, spec, expected) => {
    const policy = pp(spec);
    mutatePropagationPolicy(policy, undefined, testContext());
    expect(tolerationsOf(policy)).toEqual(expected);
  });

  it("takes the seconds from the admission configuration, for ClusterPropagationPolicies too", () => {
    const policy = cpp({ placement: { clusterAffinity: { clusterNames: ["member1"] } } });
    mutateClusterPropagationPolicy(policy, undefined, {
      ...testContext(),
      defaultNotReadyTolerationSeconds: 10,
      defaultUnreachableTolerationSeconds: 20,
    });
    expect(policy.spec).toMatchObject({
      placement: {
        clusterAffinity: { clusterNames: ["member1"] },
        clusterTolerations: [notReady(10), unreachable(20)],
      },
    });
  });

  it("is added on update as well, and only once", () => {
    const policy = created(pp({}));
    const update = structuredClone(policy);
    delete (update.spec as { placement?: unknown }).placement;
    mutatePropagationPolicy(update, policy, testContext());
    mutatePropagationPolicy(update, policy, testContext());
    expect(tolerationsOf(update)).toEqual([notReady(300), unreachable(300)]);
  });

  it("passes validation and the schema", () => {
    const policy = created(pp({}));
    expect(validateObject(policy, propagationPolicyCrd.spec.versions[0]!.schema!.openAPIV3Schema)).toEqual(
      [],
    );
    expect(validatePropagationPolicy(policy)).toEqual([]);
  });
});
