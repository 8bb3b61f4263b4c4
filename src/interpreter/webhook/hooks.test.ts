import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../api/meta.ts";
import type { InterpreterOperation } from "../types.ts";
import { hookFor, hooksOf, objectKindOf, ruleMatches, type WebhookRule } from "./hooks.ts";

const WORKLOAD = objectKindOf("workload.example.io/v1alpha1", "Workload");

function rule(r: Partial<WebhookRule>): WebhookRule {
  return {
    operations: ["InterpretReplica"],
    apiGroups: ["workload.example.io"],
    apiVersions: ["v1alpha1"],
    kinds: ["Workload"],
    ...r,
  };
}

function configuration(name: string, webhooks: unknown[]): StoredObject {
  return {
    apiVersion: "config.karmada.io/v1alpha1",
    kind: "ResourceInterpreterWebhookConfiguration",
    metadata: { name, uid: `uid-${name}` },
    webhooks,
  };
}

function webhook(name: string, rules: unknown[], url = `https://${name}/`): Record<string, unknown> {
  return { name, rules, clientConfig: { url }, interpreterContextVersions: ["v1alpha1"] };
}

describe("ruleMatches", () => {
  const cases: Array<[string, Partial<WebhookRule>, InterpreterOperation, boolean]> = [
    ["exact rule", {}, "InterpretReplica", true],
    ["another operation", {}, "Retain", false],
    ["operation *", { operations: ["*"] }, "InterpretHealth", true],
    ["one of several operations", { operations: ["Retain", "InterpretReplica"] }, "InterpretReplica", true],
    ["another group", { apiGroups: ["apps"] }, "InterpretReplica", false],
    ["group *", { apiGroups: ["*"] }, "InterpretReplica", true],
    ["another version", { apiVersions: ["v1"] }, "InterpretReplica", false],
    ["version *", { apiVersions: ["*"] }, "InterpretReplica", true],
    ["another kind", { kinds: ["Deployment"] }, "InterpretReplica", false],
    ["kind *", { kinds: ["*"] }, "InterpretReplica", true],
    ["kinds are case-sensitive", { kinds: ["workload"] }, "InterpretReplica", false],
    ["no operations", { operations: [] }, "InterpretReplica", false],
    ["no kinds", { kinds: [] }, "InterpretReplica", false],
  ];
  it.each(cases)("%s", (_name, r, operation, want) => {
    expect(ruleMatches(rule(r), operation, WORKLOAD)).toBe(want);
  });

  it("matches the core group as the empty string", () => {
    const core = objectKindOf("v1", "ConfigMap");
    expect(core).toEqual({ group: "", version: "v1", kind: "ConfigMap" });
    expect(
      ruleMatches(
        rule({ apiGroups: [""], apiVersions: ["v1"], kinds: ["ConfigMap"] }),
        "InterpretReplica",
        core,
      ),
    ).toBe(true);
    expect(ruleMatches(rule({ apiGroups: ["apps"], kinds: ["ConfigMap"] }), "InterpretReplica", core)).toBe(
      false,
    );
  });
});

describe("hooksOf", () => {
  it("lists webhooks by configuration name, then in their listed order, with uids", () => {
    const hooks = hooksOf([
      configuration("b", [webhook("two.example.io", []), webhook("one.example.io", [])]),
      configuration("a", [webhook("z.example.io", [])]),
    ]);
    expect(hooks.map((h) => h.uid)).toEqual(["a/z.example.io", "b/two.example.io", "b/one.example.io"]);
  });

  it("reads the client config, timeout and versions", () => {
    const [hook] = hooksOf([
      configuration("c", [
        {
          name: "svc.example.io",
          clientConfig: {
            service: { namespace: "karmada-system", name: "interp", path: "/x", port: 8443 },
            caBundle: "Q0E=",
          },
          rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], kinds: ["*"] }],
          timeoutSeconds: 3,
          interpreterContextVersions: ["v1alpha1"],
        },
      ]),
    ]);
    expect(hook).toEqual({
      uid: "c/svc.example.io",
      configuration: "c",
      name: "svc.example.io",
      clientConfig: {
        service: { namespace: "karmada-system", name: "interp", path: "/x", port: 8443 },
        caBundle: "Q0E=",
      },
      rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], kinds: ["*"] }],
      timeoutSeconds: 3,
      interpreterContextVersions: ["v1alpha1"],
    });
  });

  it("tolerates configurations without webhooks", () => {
    expect(hooksOf([configuration("empty", [])])).toEqual([]);
    expect(hooksOf([{ ...configuration("none", []), webhooks: undefined }])).toEqual([]);
  });
});

describe("hookFor", () => {
  const all = { operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], kinds: ["*"] };
  const workload = {
    operations: ["InterpretReplica"],
    apiGroups: ["workload.example.io"],
    apiVersions: ["v1alpha1"],
    kinds: ["Workload"],
  };

  it("answers nothing when no rule matches", () => {
    const hooks = hooksOf([configuration("a", [webhook("w.example.io", [workload])])]);
    expect(hookFor(hooks, "Retain", WORKLOAD)).toBeUndefined();
    expect(hookFor(hooks, "InterpretReplica", objectKindOf("apps/v1", "Deployment"))).toBeUndefined();
    expect(hookFor(hooks, "InterpretReplica", WORKLOAD)?.uid).toBe("a/w.example.io");
  });

  it("a webhook matches when any of its rules does", () => {
    const hooks = hooksOf([
      configuration("a", [webhook("w.example.io", [workload, { ...workload, operations: ["Retain"] }])]),
    ]);
    expect(hookFor(hooks, "Retain", WORKLOAD)?.uid).toBe("a/w.example.io");
  });

  it("picks the first matching webhook by <configuration>/<webhook>, not by listed order or specificity", () => {
    const hooks = hooksOf([
      configuration("b", [webhook("exact.example.io", [workload])]),
      configuration("a", [webhook("z.example.io", [all]), webhook("m.example.io", [all])]),
    ]);
    // "a/m.example.io" < "a/z.example.io" < "b/exact.example.io", though z is listed first in "a"
    // and "b" names the kind exactly.
    expect(hookFor(hooks, "InterpretReplica", WORKLOAD)?.uid).toBe("a/m.example.io");
  });

  it("compares uids as plain strings (upper case before lower case)", () => {
    const hooks = hooksOf([
      configuration("cfg", [webhook("b.example.io", [all]), webhook("B.example.io", [all])]),
    ]);
    expect(hookFor(hooks, "InterpretHealth", WORKLOAD)?.uid).toBe("cfg/B.example.io");
  });

  it("keeps the first listed of two webhooks with the same uid", () => {
    const hooks = hooksOf([
      configuration("cfg", [
        webhook("dup.example.io", [all], "https://first/"),
        webhook("dup.example.io", [all], "https://second/"),
      ]),
    ]);
    expect(hookFor(hooks, "InterpretHealth", WORKLOAD)?.clientConfig.url).toBe("https://first/");
  });
});
