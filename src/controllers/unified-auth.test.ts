import { describe, expect, it } from "vitest";
import type { StoredObject } from "../api/meta.ts";
import { impersonationRules, proxiedClusters } from "./unified-auth.ts";

const role = (rules: unknown[]): StoredObject =>
  ({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: "r", uid: "uid-r" },
    rules,
  }) as StoredObject;

describe("which clusters a ClusterRole lets its subjects proxy", () => {
  it.each([
    [
      [
        {
          apiGroups: ["cluster.karmada.io"],
          resources: ["clusters/proxy"],
          resourceNames: ["member1"],
          verbs: ["get"],
        },
      ],
      ["member1"],
    ],
    [[{ apiGroups: ["cluster.karmada.io"], resources: ["clusters/proxy"], verbs: ["*"] }], "all"],
    [[{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }], "all"],
    [
      [
        {
          apiGroups: ["search.karmada.io"],
          resources: ["proxying/proxy"],
          resourceNames: ["karmada"],
          verbs: ["get"],
        },
      ],
      "all",
    ],
    [[{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }], []],
  ])("%j", (rules, want) => {
    expect(proxiedClusters(role(rules))).toEqual(want);
  });
});

describe("the impersonator's rules", () => {
  it("names each kind of subject once, sorted, without namespaces", () => {
    expect(
      impersonationRules([
        { kind: "User", name: "system:admin" },
        { kind: "Group", name: "system:masters" },
        { kind: "ServiceAccount", name: "tom", namespace: "default" },
        { kind: "ServiceAccount", name: "tom", namespace: "other" },
        { kind: "User", name: "alice" },
      ]),
    ).toEqual([
      {
        apiGroups: [""],
        resources: ["users"],
        verbs: ["impersonate"],
        resourceNames: ["alice", "system:admin"],
      },
      { apiGroups: [""], resources: ["serviceaccounts"], verbs: ["impersonate"], resourceNames: ["tom"] },
      { apiGroups: [""], resources: ["groups"], verbs: ["impersonate"], resourceNames: ["system:masters"] },
    ]);
    expect(impersonationRules([])).toEqual([]);
  });
});
