import { describe, expect, it } from "vitest";
import type { UserInfo } from "../context.ts";
import {
  type Attributes,
  compactMissingRules,
  nonResourceUrlMatches,
  type PolicyRule,
  ruleAllows,
  rulesOf,
  uncoveredRules,
} from "./rules.ts";

const user: UserInfo = { name: "bob", groups: ["system:authenticated"] };

function resource(
  verb: string,
  apiGroup: string,
  resourcePath: string,
  where: { namespace?: string; name?: string } = {},
): Attributes {
  const [res, sub] = resourcePath.split("/") as [string, string | undefined];
  return {
    kind: "resource",
    user,
    verb,
    apiGroup,
    resource: res,
    subresource: sub ?? "",
    namespace: where.namespace ?? "default",
    name: where.name ?? "",
  };
}

const path = (verb: string, p: string): Attributes => ({ kind: "nonresource", user, verb, path: p });

describe("ruleAllows", () => {
  const getPods: PolicyRule = { verbs: ["get"], apiGroups: [""], resources: ["pods"] };
  const cases: Array<{ name: string; rule: PolicyRule; request: Attributes; want: boolean }> = [
    {
      name: "exact verb, group and resource",
      rule: getPods,
      request: resource("get", "", "pods"),
      want: true,
    },
    { name: "other verb", rule: getPods, request: resource("list", "", "pods"), want: false },
    { name: "other group", rule: getPods, request: resource("get", "apps", "pods"), want: false },
    { name: "other resource", rule: getPods, request: resource("get", "", "secrets"), want: false },
    {
      name: "verb *",
      rule: { verbs: ["*"], apiGroups: [""], resources: ["pods"] },
      request: resource("deletecollection", "", "pods"),
      want: true,
    },
    {
      name: "group *",
      rule: { verbs: ["get"], apiGroups: ["*"], resources: ["deployments"] },
      request: resource("get", "apps", "deployments"),
      want: true,
    },
    {
      name: "resource * matches a subresource too",
      rule: { verbs: ["get"], apiGroups: [""], resources: ["*"] },
      request: resource("get", "", "pods/log"),
      want: true,
    },
    {
      name: "resource/subresource",
      rule: { verbs: ["get"], apiGroups: [""], resources: ["pods/log"] },
      request: resource("get", "", "pods/log"),
      want: true,
    },
    {
      name: "resource/subresource does not grant the resource",
      rule: { verbs: ["get"], apiGroups: [""], resources: ["pods/log"] },
      request: resource("get", "", "pods"),
      want: false,
    },
    {
      name: "pods does not match pods/log",
      rule: getPods,
      request: resource("get", "", "pods/log"),
      want: false,
    },
    {
      name: "*/scale matches deployments/scale",
      rule: { verbs: ["update"], apiGroups: ["apps"], resources: ["*/scale"] },
      request: resource("update", "apps", "deployments/scale"),
      want: true,
    },
    {
      name: "*/scale matches replicasets/scale",
      rule: { verbs: ["update"], apiGroups: ["apps"], resources: ["*/scale"] },
      request: resource("update", "apps", "replicasets/scale"),
      want: true,
    },
    {
      name: "*/scale does not match the resource itself",
      rule: { verbs: ["update"], apiGroups: ["apps"], resources: ["*/scale"] },
      request: resource("update", "apps", "deployments"),
      want: false,
    },
    {
      name: "*/scale does not match another subresource",
      rule: { verbs: ["update"], apiGroups: ["apps"], resources: ["*/scale"] },
      request: resource("update", "apps", "deployments/status"),
      want: false,
    },
    {
      name: "resourceNames: the named object",
      rule: { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a", "b"] },
      request: resource("get", "", "configmaps", { name: "b" }),
      want: true,
    },
    {
      name: "resourceNames: another object",
      rule: { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] },
      request: resource("get", "", "configmaps", { name: "c" }),
      want: false,
    },
    {
      name: "resourceNames: a request without a name (list) is not matched",
      rule: { verbs: ["list"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] },
      request: resource("list", "", "configmaps"),
      want: false,
    },
    {
      name: "resourceNames: a request without a name (create) is not matched",
      rule: { verbs: ["create"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] },
      request: resource("create", "", "configmaps"),
      want: false,
    },
    {
      name: "empty resourceNames match any name",
      rule: { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: [] },
      request: resource("get", "", "configmaps", { name: "x" }),
      want: true,
    },
    {
      name: "a rule without apiGroups never matches a resource request",
      rule: { verbs: ["get"], resources: ["pods"] },
      request: resource("get", "", "pods"),
      want: false,
    },
    {
      name: "a non-resource rule does not match a resource request",
      rule: { verbs: ["*"], nonResourceURLs: ["*"] },
      request: resource("get", "", "pods"),
      want: false,
    },
    {
      name: "a resource rule does not match a non-resource request",
      rule: { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
      request: path("get", "/healthz"),
      want: false,
    },
    {
      name: "exact URL",
      rule: { verbs: ["get"], nonResourceURLs: ["/healthz"] },
      request: path("get", "/healthz"),
      want: true,
    },
    {
      name: "exact URL does not match a longer path",
      rule: { verbs: ["get"], nonResourceURLs: ["/healthz"] },
      request: path("get", "/healthz/etcd"),
      want: false,
    },
    {
      name: "URL verb mismatch",
      rule: { verbs: ["get"], nonResourceURLs: ["/healthz"] },
      request: path("post", "/healthz"),
      want: false,
    },
    {
      name: "URL *",
      rule: { verbs: ["get"], nonResourceURLs: ["*"] },
      request: path("get", "/anything/at/all"),
      want: true,
    },
    {
      name: "/apis/* matches /apis/apps/v1",
      rule: { verbs: ["get"], nonResourceURLs: ["/apis/*"] },
      request: path("get", "/apis/apps/v1"),
      want: true,
    },
    {
      name: "/apis/* matches /apis/",
      rule: { verbs: ["get"], nonResourceURLs: ["/apis/*"] },
      request: path("get", "/apis/"),
      want: true,
    },
    {
      name: "/apis/* does not match /apis",
      rule: { verbs: ["get"], nonResourceURLs: ["/apis/*"] },
      request: path("get", "/apis"),
      want: false,
    },
    {
      name: "/healthz/* does not match /healthzfoo",
      rule: { verbs: ["get"], nonResourceURLs: ["/healthz/*"] },
      request: path("get", "/healthzfoo"),
      want: false,
    },
    {
      name: "trailing * is a plain prefix",
      rule: { verbs: ["get"], nonResourceURLs: ["/metrics*"] },
      request: path("get", "/metrics/slis"),
      want: true,
    },
  ];
  it.each(cases)("$name", ({ rule, request, want }) => {
    expect(ruleAllows(rule, request)).toBe(want);
  });
});

describe("uncoveredRules", () => {
  const cases: Array<{ name: string; owned: PolicyRule[]; requested: PolicyRule[]; want: PolicyRule[] }> = [
    {
      name: "*/*/* covers any resource rule",
      owned: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
      requested: [
        {
          verbs: ["get", "escalate", "bind"],
          apiGroups: ["", "apps"],
          resources: ["pods", "deployments/scale"],
        },
        { verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["a"] },
      ],
      want: [],
    },
    {
      name: "the same rule covers itself",
      owned: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }],
      requested: [{ verbs: ["list", "get"], apiGroups: [""], resources: ["pods"] }],
      want: [],
    },
    {
      name: "verbs are split into atoms; only the missing ones are returned",
      owned: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
      requested: [{ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] }],
      want: [
        { verbs: ["list"], apiGroups: [""], resources: ["pods"] },
        { verbs: ["watch"], apiGroups: [""], resources: ["pods"] },
      ],
    },
    {
      name: "atoms may be covered by different owner rules",
      owned: [
        { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
        { verbs: ["list"], apiGroups: ["*"], resources: ["pods"] },
      ],
      requested: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }],
      want: [],
    },
    {
      name: "owner verb * covers escalate, bind and impersonate",
      owned: [{ verbs: ["*"], apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles"] }],
      requested: [
        {
          verbs: ["escalate", "bind", "impersonate"],
          apiGroups: ["rbac.authorization.k8s.io"],
          resources: ["clusterroles"],
        },
      ],
      want: [],
    },
    {
      name: "another group is not covered",
      owned: [{ verbs: ["get"], apiGroups: ["apps"], resources: ["deployments"] }],
      requested: [{ verbs: ["get"], apiGroups: ["extensions"], resources: ["deployments"] }],
      want: [{ verbs: ["get"], apiGroups: ["extensions"], resources: ["deployments"] }],
    },
    {
      name: "*/scale covers any resource's scale",
      owned: [{ verbs: ["update"], apiGroups: ["apps"], resources: ["*/scale"] }],
      requested: [
        { verbs: ["update"], apiGroups: ["apps"], resources: ["deployments/scale", "statefulsets/scale"] },
      ],
      want: [],
    },
    {
      name: "*/scale does not cover the resource itself",
      owned: [{ verbs: ["update"], apiGroups: ["apps"], resources: ["*/scale"] }],
      requested: [{ verbs: ["update"], apiGroups: ["apps"], resources: ["deployments"] }],
      want: [{ verbs: ["update"], apiGroups: ["apps"], resources: ["deployments"] }],
    },
    {
      name: "pods does not cover pods/log",
      owned: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
      requested: [{ verbs: ["get"], apiGroups: [""], resources: ["pods/log"] }],
      want: [{ verbs: ["get"], apiGroups: [""], resources: ["pods/log"] }],
    },
    {
      name: "an owner without names covers a named rule",
      owned: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }],
      requested: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["a", "b"] }],
      want: [],
    },
    {
      name: "a named owner covers only its names, one atom per name",
      owned: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["a"] }],
      requested: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["a", "b"] }],
      want: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["b"] }],
    },
    {
      name: "a named owner does not cover an unnamed rule",
      owned: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["a"] }],
      requested: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }],
      want: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }],
    },
    {
      name: "URL * covers any URL",
      owned: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
      requested: [{ verbs: ["get", "post"], nonResourceURLs: ["/metrics", "/healthz/etcd"] }],
      want: [],
    },
    {
      name: "a URL prefix covers longer paths only",
      owned: [{ verbs: ["get"], nonResourceURLs: ["/healthz/*"] }],
      requested: [{ verbs: ["get"], nonResourceURLs: ["/healthz/etcd", "/healthz", "/metrics"] }],
      want: [
        { verbs: ["get"], nonResourceURLs: ["/healthz"] },
        { verbs: ["get"], nonResourceURLs: ["/metrics"] },
      ],
    },
    {
      name: "URL verbs are split into atoms",
      owned: [{ verbs: ["get"], nonResourceURLs: ["/metrics"] }],
      requested: [{ verbs: ["get", "post"], nonResourceURLs: ["/metrics"] }],
      want: [{ verbs: ["post"], nonResourceURLs: ["/metrics"] }],
    },
    {
      name: "resource rules do not cover URLs",
      owned: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
      requested: [{ verbs: ["get"], nonResourceURLs: ["/metrics"] }],
      want: [{ verbs: ["get"], nonResourceURLs: ["/metrics"] }],
    },
    {
      name: "URL rules do not cover resources",
      owned: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
      requested: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
      want: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
    },
    {
      name: "nothing owned: every atom is missing",
      owned: [],
      requested: [{ verbs: ["get"], apiGroups: ["", "apps"], resources: ["deployments"] }],
      want: [
        { verbs: ["get"], apiGroups: [""], resources: ["deployments"] },
        { verbs: ["get"], apiGroups: ["apps"], resources: ["deployments"] },
      ],
    },
    { name: "nothing requested", owned: [], requested: [], want: [] },
  ];
  it.each(cases)("$name", ({ owned, requested, want }) => {
    const got = uncoveredRules(owned, requested);
    // The order of atoms is not part of the contract: compare as sets.
    expect(got).toHaveLength(want.length);
    expect(got).toEqual(expect.arrayContaining(want));
  });
});

describe("compactMissingRules", () => {
  const cases: Array<{ name: string; owned: PolicyRule[]; requested: PolicyRule[]; want: string[] }> = [
    {
      name: "verbs of one group/resource merge into one line",
      owned: [],
      requested: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["secrets"] }],
      want: ['{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}'],
    },
    {
      name: "verbs keep the requested rule's order",
      owned: [],
      requested: [{ verbs: ["watch", "get"], apiGroups: ["apps"], resources: ["deployments"] }],
      want: ['{APIGroups:["apps"], Resources:["deployments"], Verbs:["watch" "get"]}'],
    },
    {
      name: "only the missing verbs are listed",
      owned: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }],
      requested: [{ verbs: ["get", "list", "delete"], apiGroups: [""], resources: ["secrets"] }],
      want: ['{APIGroups:[""], Resources:["secrets"], Verbs:["list" "delete"]}'],
    },
    {
      name: "different resources and groups are separate lines, sorted",
      owned: [],
      requested: [
        { verbs: ["get"], apiGroups: ["apps"], resources: ["statefulsets", "deployments"] },
        { verbs: ["get", "create"], apiGroups: [""], resources: ["secrets"] },
      ],
      want: [
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "create"]}',
        '{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}',
        '{APIGroups:["apps"], Resources:["statefulsets"], Verbs:["get"]}',
      ],
    },
    {
      name: "atoms from several requested rules merge by group/resource",
      owned: [],
      requested: [
        { verbs: ["get"], apiGroups: [""], resources: ["configmaps"] },
        { verbs: ["update"], apiGroups: [""], resources: ["configmaps"] },
      ],
      want: ['{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "update"]}'],
    },
    {
      name: "names are kept apart, one line each",
      owned: [],
      requested: [
        { verbs: ["get", "update"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["b", "a"] },
      ],
      want: [
        '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["a"], Verbs:["get" "update"]}',
        '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["b"], Verbs:["get" "update"]}',
      ],
    },
    {
      name: "a named and an unnamed rule are separate lines",
      owned: [],
      requested: [
        { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["x"] },
        { verbs: ["list"], apiGroups: [""], resources: ["configmaps"] },
      ],
      want: [
        '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["x"], Verbs:["get"]}',
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["list"]}',
      ],
    },
    {
      name: "non-resource URLs, one line per URL and verb, after resource lines",
      owned: [],
      requested: [
        { verbs: ["get", "post"], nonResourceURLs: ["/metrics"] },
        { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
      ],
      want: [
        '{APIGroups:[""], Resources:["pods"], Verbs:["get"]}',
        '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
        '{NonResourceURLs:["/metrics"], Verbs:["post"]}',
      ],
    },
    {
      name: "subresources print as written",
      owned: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
      requested: [{ verbs: ["get"], apiGroups: [""], resources: ["pods", "pods/exec"] }],
      want: ['{APIGroups:[""], Resources:["pods/exec"], Verbs:["get"]}'],
    },
    { name: "nothing missing", owned: [], requested: [], want: [] },
  ];
  it.each(cases)("$name", ({ owned, requested, want }) => {
    expect(compactMissingRules(uncoveredRules(owned, requested))).toEqual(want);
  });

  it("repeated missing URL atoms give one line", () => {
    const atom: PolicyRule = { verbs: ["get"], nonResourceURLs: ["/metrics"] };
    expect(compactMissingRules([atom, { ...atom }])).toEqual([
      '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    ]);
  });

  it("does not change the atoms it is given", () => {
    const atoms: PolicyRule[] = [
      { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
      { verbs: ["list"], apiGroups: [""], resources: ["pods"] },
    ];
    const copy = structuredClone(atoms);
    compactMissingRules(atoms);
    expect(atoms).toEqual(copy);
  });
});

describe("rulesOf", () => {
  const cases: Array<{ name: string; obj: object; want: PolicyRule[] }> = [
    { name: "no rules field", obj: { metadata: { name: "r" } }, want: [] },
    { name: "rules: null (aggregated role as bootstrapped)", obj: { rules: null }, want: [] },
    { name: "rules not a list", obj: { rules: { verbs: ["get"] } }, want: [] },
    {
      name: "a resource rule keeps only the fields it has",
      obj: { rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] },
      want: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
    },
    {
      name: "every field",
      obj: {
        rules: [
          { verbs: ["get"], apiGroups: ["apps"], resources: ["deployments"], resourceNames: ["web"] },
          { verbs: ["get"], nonResourceURLs: ["/healthz"] },
        ],
      },
      want: [
        { verbs: ["get"], apiGroups: ["apps"], resources: ["deployments"], resourceNames: ["web"] },
        { verbs: ["get"], nonResourceURLs: ["/healthz"] },
      ],
    },
    {
      name: "malformed entries are dropped, non-strings filtered out",
      obj: {
        rules: [
          null,
          "get pods",
          7,
          { verbs: ["get", 3, null], apiGroups: [""], resources: "pods" },
          { apiGroups: [""], resources: ["pods"] },
        ],
      },
      want: [
        { verbs: ["get"], apiGroups: [""] },
        { verbs: [], apiGroups: [""], resources: ["pods"] },
      ],
    },
  ];
  it.each(cases)("$name", ({ obj, want }) => {
    expect(rulesOf(obj)).toEqual(want);
  });

  it("reads rules that then authorize", () => {
    const rules = rulesOf({ rules: [{ verbs: ["list"], apiGroups: [""], resources: ["secrets"] }] });
    expect(rules.some((r) => ruleAllows(r, resource("list", "", "secrets")))).toBe(true);
    expect(rules.some((r) => ruleAllows(r, resource("get", "", "secrets", { name: "x" })))).toBe(false);
  });
});

describe("nonResourceUrlMatches with several trailing stars", () => {
  it("strips them all, as kube-apiserver does", () => {
    expect(nonResourceUrlMatches("/apis**", "/apis/x")).toBe(true);
    expect(nonResourceUrlMatches("/apis**", "/api")).toBe(false);
  });
});
