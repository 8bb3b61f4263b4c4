import { describe, expect, it } from "vitest";
import { EXPLANATION_ANNOTATION } from "../../controllers/scheduler.ts";
import type { ScheduleExplanation } from "../../scheduler/core/types.ts";
import {
  alignColumns,
  describeObject,
  type EventItem,
  goValue,
  smartLabelFor,
  validateDescribeOptions,
} from "./describe.ts";

const NOW = Date.parse("2024-05-01T12:00:00Z");

describe("alignColumns (Go's tabwriter, padding 2)", () => {
  it("aligns a column over consecutive lines that have it; a line without cells ends the block", () => {
    const text = [
      "Name:\tweb\n",
      "Namespace:\tdefault\n",
      "Spec:\n",
      "  Replicas:\t2\n",
      "  Paused:\tfalse\n",
    ];
    expect(alignColumns(text.join(""), 2)).toBe(
      ["Name:       web", "Namespace:  default", "Spec:", "  Replicas:  2", "  Paused:    false", ""].join(
        "\n",
      ),
    );
  });

  it("pads empty leading cells (label continuation lines) and leaves the last cell alone", () => {
    expect(alignColumns("Labels:\ta=1\n\tb=2\nKind:\tX\n", 2)).toBe(
      "Labels:  a=1\n         b=2\nKind:    X\n",
    );
  });

  it("nests columns: a wider column only over the lines that have it", () => {
    const text = "Events:\n  Type\tReason\tMessage\n  ----\t------\t-------\n  Normal\tSynced\tok\n";
    expect(alignColumns(text, 2)).toBe(
      ["Events:", "  Type    Reason  Message", "  ----    ------  -------", "  Normal  Synced  ok", ""].join(
        "\n",
      ),
    );
  });
});

describe("smartLabelFor", () => {
  it.each([
    ["apiVersion", "API Version"],
    ["uid", "UID"],
    ["creationTimestamp", "Creation Timestamp"],
    ["schedulerObservedGeneration", "Scheduler Observed Generation"],
    ["podCIDRs", "Pod CIDRs"],
    ["apiEndpoint", "API Endpoint"],
    ["externalIPs", "External I Ps"],
    ["replicas", "Replicas"],
    ["app.kubernetes.io/name", "app.kubernetes.io/name"],
    ["replicas2", "replicas2"],
    ["x-y", "X - Y"],
  ])("%s → %s", (field, label) => {
    expect(smartLabelFor(field)).toBe(label);
  });
});

describe("goValue (Go's %v of decoded JSON)", () => {
  it.each([
    ["text", "text"],
    [2, "2"],
    [0.5, "0.5"],
    [1234567.5, "1.2345675e+06"],
    [0.00001, "1e-05"],
    [true, "true"],
    [null, "<nil>"],
    [[1, "a"], "[1 a]"],
    [{ b: 1, a: "x" }, "map[a:x b:1]"],
  ])("%j → %s", (value, text) => {
    expect(goValue(value)).toBe(text);
  });
});

const explanation: ScheduleExplanation = {
  attempts: [
    {
      affinityName: "primary",
      affinityIndex: 0,
      needs: { replicas: 3, request: { cpu: "100m" } },
      clusters: [
        { name: "member1", score: 0, fits: 1, selected: false },
        {
          name: "member2",
          filteredBy: "TaintToleration",
          reason: "cluster(s) had untolerated taint {team=a:NoSchedule}",
        },
      ],
      error: { reason: "NoClusterFit", message: "0/2 clusters are available" },
    },
    {
      affinityName: "backup",
      affinityIndex: 1,
      needs: { replicas: 3, request: { cpu: "100m" } },
      clusters: [{ name: "member3", score: 0, fits: 40, selected: true, replicas: 3 }],
      spread: { by: "all" },
      replicas: { strategy: "Aggregated", replicas: 3, mode: "fresh" },
    },
  ],
  affinityName: "backup",
};

function clusterBinding(annotations: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: "work.karmada.io/v1alpha2",
    kind: "ClusterResourceBinding",
    metadata: {
      name: "reader-clusterrole",
      uid: "u-1",
      labels: { "clusterpropagationpolicy.karmada.io/permanent-id": "p-1" },
      annotations,
      managedFields: [{ manager: "karmada" }],
    },
    spec: { clusters: [{ name: "member3", replicas: 3 }], replicas: 3 },
  };
}

describe("describeObject", () => {
  it("prints a binding as kubectl's generic describer, then its scheduling, then events", () => {
    const events: EventItem[] = [
      {
        type: "Normal",
        reason: "ScheduleBindingSucceed",
        message: "Binding has been scheduled successfully. Result: {member3:3}\n",
        count: 3,
        firstTimestamp: "2024-05-01T11:50:00Z",
        lastTimestamp: "2024-05-01T11:59:30Z",
        source: { component: "default-scheduler" },
      },
      {
        type: "Warning",
        reason: "ScheduleBindingFailed",
        message: "0/2 clusters are available",
        count: 1,
        firstTimestamp: "2024-05-01T11:40:00Z",
        lastTimestamp: "2024-05-01T11:40:00Z",
        source: { component: "default-scheduler" },
      },
    ];
    const text = describeObject(
      clusterBinding({
        "policy.karmada.io/applied-placement": "{}",
        [EXPLANATION_ANNOTATION]: JSON.stringify(explanation),
      }),
      events,
      NOW,
    );
    expect(text).toBe(
      [
        "Name:         reader-clusterrole",
        "Namespace:    ",
        "Labels:       clusterpropagationpolicy.karmada.io/permanent-id=p-1",
        "Annotations:  policy.karmada.io/applied-placement: {}",
        "              scheduler.karmada-ts.io/explanation: (see Scheduling)",
        "API Version:  work.karmada.io/v1alpha2",
        "Kind:         ClusterResourceBinding",
        "Metadata:",
        "  UID:  u-1",
        "Spec:",
        "  Clusters:",
        "    Name:      member3",
        "    Replicas:  3",
        "  Replicas:    3",
        "Scheduling:",
        '  affinity term "primary" (index 0):',
        "    needs 3 replicas of {cpu: 100m}",
        "    member1: passed, not selected (score 0, fits 1 more replica of {cpu: 100m})",
        "    member2: filtered out by TaintToleration: cluster(s) had untolerated taint {team=a:NoSchedule}",
        "    failed (NoClusterFit): 0/2 clusters are available",
        '  affinity term "backup" (index 1):',
        "    needs 3 replicas of {cpu: 100m}; the selected clusters fit 40 more",
        "    member3: selected, 3 replicas (score 0, fits 40 more replicas of {cpu: 100m})",
        "    all feasible clusters selected",
        "    3 replicas by Aggregated, fresh",
        '  scheduled with affinity term "backup"',
        "Events:",
        "  Type     Reason                  Age                From               Message",
        "  ----     ------                  ----               ----               -------",
        "  Warning  ScheduleBindingFailed   20m                default-scheduler  0/2 clusters are available",
        "  Normal   ScheduleBindingSucceed  30s (x3 over 10m)  default-scheduler  Binding has been scheduled successfully. Result: {member3:3}",
        "",
      ].join("\n"),
    );
  });

  it("says when a binding has no explanation or events, and leaves Events out when not asked", () => {
    const text = describeObject(clusterBinding({}), [], NOW);
    expect(text).toContain("\nAnnotations:  <none>\n");
    expect(text).toMatch(/\nScheduling:\s+<none>\nEvents:\s+<none>\n$/);
    expect(describeObject(clusterBinding({}), undefined, NOW)).not.toContain("Events:");
  });

  it("lists long and multi-line annotations under their key, shortened, and skips last-applied-configuration", () => {
    const long = "x".repeat(200);
    const text = describeObject(
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: "c",
          namespace: "default",
          annotations: {
            "kubectl.kubernetes.io/last-applied-configuration": "{}",
            long,
            multi: "one\ntwo\n",
          },
        },
        data: { "app.conf": "a=1" },
      },
      undefined,
      NOW,
    );
    expect(text).toContain(
      [
        "Annotations:  long:",
        `                ${"x".repeat(138)}...`,
        "              multi:",
        "                one",
        "                two",
        "API Version:  v1",
        "Data:",
        // `Data:` has no cell: Kind aligns with the data lines only, as in kubectl.
        "  app.conf:  a=1",
        "Kind:        ConfigMap",
      ].join("\n"),
    );
    expect(text).not.toContain("last-applied");
  });

  it("shows a Secret's values as sizes only", () => {
    const text = describeObject(
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "s", namespace: "default" },
        data: { token: Buffer.from("secret-token").toString("base64") },
      },
      undefined,
      NOW,
    );
    expect(text).toContain("Data:\n  Token:  12 bytes\n");
    expect(text).not.toContain(Buffer.from("secret-token").toString("base64"));
  });
});

describe("validateDescribeOptions", () => {
  it("takes karmada, and members with a cluster, as upstream", () => {
    expect(() => validateDescribeOptions({ operationScope: "karmada" })).not.toThrow();
    expect(() => validateDescribeOptions({ operationScope: "members", cluster: "member1" })).not.toThrow();
    expect(() => validateDescribeOptions({ operationScope: "members" })).toThrow(
      "must specify a member cluster",
    );
    expect(() => validateDescribeOptions({ operationScope: "all" })).toThrow(
      "not support operation scope: all",
    );
  });
});
