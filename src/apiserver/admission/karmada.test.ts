import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../../test/support/api.ts";
import { loadSample, NOW, object } from "../../api/karmada/admission/admission.fixtures.ts";
import type { StoredObject } from "../../api/meta.ts";
import { ApiError } from "../../machinery/errors.ts";
import { type RequestContext, requestContext } from "../context.ts";
import type { ResourceType } from "../resource-type.ts";
import { karmadaAdmission } from "./karmada.ts";

function deps() {
  let n = 0;
  return { newUid: () => `uid-${++n}`, now: () => NOW };
}

const rt = (group: string, kind: string) => ({ group, kind }) as ResourceType;
const ctx: RequestContext = requestContext();

function pluginFor(group: string, kind: string, extra: Partial<Parameters<typeof karmadaAdmission>[0]> = {}) {
  // Deletion protection applies to every kind; the create/update plugins are one per kind.
  const found = karmadaAdmission({ ...deps(), ...extra }).filter(
    (p) => !p.validateDelete && p.handles(rt(group, kind)),
  );
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe("registry", () => {
  it("refuses to delete objects labelled deletion-protected, whatever their kind", async () => {
    const protect = karmadaAdmission(deps()).find((p) => p.validateDelete)!;
    expect(protect.handles(rt("apps", "Deployment"))).toBe(true);
    const obj = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "x",
        uid: "uid-x",
        labels: { "resourcetemplate.karmada.io/deletion-protected": "Always" },
      },
    };
    await expect(async () =>
      protect.validateDelete!(obj, { user: { name: "u", groups: [] }, warnings: [] }),
    ).rejects.toMatchObject({
      status: { code: 403 },
    });
    await protect.validateDelete!(
      { ...obj, metadata: { name: "y", uid: "uid-y" } },
      { user: { name: "u", groups: [] }, warnings: [] },
    );
  });

  const kinds: Array<[string, string]> = [
    ["policy.karmada.io", "PropagationPolicy"],
    ["policy.karmada.io", "ClusterPropagationPolicy"],
    ["policy.karmada.io", "OverridePolicy"],
    ["policy.karmada.io", "ClusterOverridePolicy"],
    ["policy.karmada.io", "FederatedResourceQuota"],
    ["policy.karmada.io", "ClusterTaintPolicy"],
    ["work.karmada.io", "ResourceBinding"],
    ["work.karmada.io", "ClusterResourceBinding"],
    ["work.karmada.io", "Work"],
    ["config.karmada.io", "ResourceInterpreterCustomization"],
    ["config.karmada.io", "ResourceInterpreterWebhookConfiguration"],
    ["autoscaling.karmada.io", "FederatedHPA"],
    ["autoscaling.karmada.io", "CronFederatedHPA"],
    ["networking.karmada.io", "MultiClusterIngress"],
    ["networking.karmada.io", "MultiClusterService"],
    ["cluster.karmada.io", "Cluster"],
  ];
  it.each(kinds)("one plugin handles %s %s", (group, kind) => {
    pluginFor(group, kind);
  });

  it("handles nothing else on create and update", () => {
    const plugins = karmadaAdmission(deps()).filter((p) => !p.validateDelete);
    for (const probe of [
      rt("apps", "Deployment"),
      rt("autoscaling", "HorizontalPodAutoscaler"),
      rt("", "Namespace"),
    ]) {
      expect(plugins.some((p) => p.handles(probe))).toBe(false);
    }
  });

  it("mutates bindings on create only", async () => {
    const plugin = pluginFor("work.karmada.io", "ResourceBinding");
    const binding = object(
      "work.karmada.io/v1alpha2",
      "ResourceBinding",
      { name: "b", namespace: "default", uid: "uid-b" },
      { spec: {} },
    );
    await plugin.mutate!(binding, structuredClone(binding), "UPDATE", ctx);
    expect(binding.metadata.labels).toBeUndefined();
    await plugin.mutate!(binding, undefined, "CREATE", ctx);
    expect(binding.metadata.labels).toEqual({ "resourcebinding.karmada.io/permanent-id": "uid-1" });
  });

  it("throws upstream's 403 for plain-sentence refusals", async () => {
    const plugin = pluginFor("policy.karmada.io", "PropagationPolicy");
    const policy = object(
      "policy.karmada.io/v1alpha1",
      "PropagationPolicy",
      { name: "p", namespace: "default", uid: "uid-p" },
      { spec: {} },
    );
    const err = await Promise.resolve(plugin.validate!(policy, undefined, "CREATE", ctx)).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'admission webhook "propagationpolicy.karmada.io" denied the request: label propagationpolicy.karmada.io/permanent-id is required, it should be set by the mutating admission webhook during creation',
      reason: "Forbidden",
      code: 403,
    });
  });

  it("lists stored customizations and compiles scripts through its dependencies", async () => {
    const ric = (name: string, script: string): StoredObject =>
      object(
        "config.karmada.io/v1alpha1",
        "ResourceInterpreterCustomization",
        { name, uid: `uid-${name}` },
        {
          spec: {
            target: { apiVersion: "apps/v1", kind: "Deployment" },
            customizations: { retention: { luaScript: script } },
          },
        },
      );
    const stored = [ric("first", "a")];
    const plugin = pluginFor("config.karmada.io", "ResourceInterpreterCustomization", {
      listResourceInterpreterCustomizations: async () => stored,
      compileLua: (s) => (s === "bad" ? "syntax error" : undefined),
    });
    await expect(
      Promise.resolve(plugin.validate!(ric("second", "b"), undefined, "CREATE", ctx)),
    ).rejects.toThrow(
      'admission webhook "resourceinterpretercustomization.karmada.io" denied the request: conflicting with InterpreterOperation(Retain) of existing ResourceInterpreterCustomization(first)',
    );
    await expect(
      Promise.resolve(plugin.validate!(ric("first", "bad"), undefined, "UPDATE", ctx)),
    ).rejects.toThrow("InterpreterOperation(Retain) Lua script error: syntax error");
    expect(await plugin.validate!(ric("first", "fine"), undefined, "UPDATE", ctx)).toEqual([]);
  });

  it("allows NoExecute cluster taint policies when configured", async () => {
    const policy = object(
      "policy.karmada.io/v1alpha1",
      "ClusterTaintPolicy",
      { name: "t", uid: "uid-t" },
      {
        spec: { taints: [{ key: "k", effect: "NoExecute" }] },
      },
    );
    expect(
      await pluginFor("policy.karmada.io", "ClusterTaintPolicy").validate!(policy, undefined, "CREATE", ctx),
    ).toHaveLength(1);
    const allowed = pluginFor("policy.karmada.io", "ClusterTaintPolicy", { allowNoExecuteTaintPolicy: true });
    expect(await allowed.validate!(policy, undefined, "CREATE", ctx)).toEqual([]);
  });
});

describe("through the API server", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ admission: karmadaAdmission(deps()) });
  });
  afterAll(async () => {
    await api.close();
  });

  const PP = "/apis/policy.karmada.io/v1alpha1/namespaces/default/propagationpolicies";
  const OP = "/apis/policy.karmada.io/v1alpha1/namespaces/default/overridepolicies";
  const CPP = "/apis/policy.karmada.io/v1alpha1/clusterpropagationpolicies";

  it("admits every upstream sample policy", async () => {
    const posts: Array<[string, string]> = [
      [PP, "nginx/propagationpolicy.yaml"],
      [OP, "nginx/overridepolicy.yaml"],
      [CPP, "guestbook/guestbooks-clusterpropagationpolicy.yaml"],
      [OP, "guestbook/guestbooks-overridepolicy.yaml"],
    ];
    for (const [url, file] of posts) {
      for (const doc of loadSample(file)) {
        const res = await api.call("POST", url, doc);
        expect(res.status, `${file}: ${JSON.stringify(res.body)}`).toBe(201);
      }
    }
    const guestbookPP = loadSample("guestbook/guestbooks-propagationpolicy.yaml")[0]!;
    guestbookPP.metadata.name = "guestbook-policy";
    expect((await api.call("POST", PP, guestbookPP)).status).toBe(201);
  });

  it("stores what the mutating webhook adds", async () => {
    const res = await api.call("GET", `${PP}/nginx-propagation`);
    expect(res.body.metadata.labels?.["propagationpolicy.karmada.io/permanent-id"]).toMatch(/^uid-\d+$/);
    expect(res.body.metadata.finalizers).toEqual(["karmada.io/propagation-policy-controller"]);
    expect(res.body.spec).toMatchObject({
      resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx", namespace: "default" }],
      schedulerName: "default-scheduler",
    });
  });

  it("refuses a schedulerName change with the webhook's 403", async () => {
    const current = await api.call("GET", `${PP}/nginx-propagation`);
    const changed = { ...current.body, spec: { ...(current.body.spec as object), schedulerName: "other" } };
    const res = await api.call("PUT", `${PP}/nginx-propagation`, changed);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(
      'admission webhook "propagationpolicy.karmada.io" denied the request: the schedulerName should not be updated',
    );
  });

  it("reports spec rules as a 422 with every cause", async () => {
    const res = await api.call("POST", PP, {
      apiVersion: "policy.karmada.io/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: "bad-spread" },
      spec: {
        resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: "other" }],
        placement: { spreadConstraints: [{ spreadByField: "region", minGroups: 2, maxGroups: 1 }] },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      'PropagationPolicy.policy.karmada.io "bad-spread" is invalid: [' +
        'spec.placement.spreadConstraints[0]: Invalid value: {"spreadByField":"region","minGroups":2,"maxGroups":1}: maxGroups lower than minGroups is not allowed, ' +
        'spec.placement.spreadConstraints: Invalid value: [{"spreadByField":"region","minGroups":2,"maxGroups":1}]: the cluster spread constraint must be enabled in one of the constraints in case of SpreadByField is enabled, ' +
        'spec.resourceSelectors[0].namespace: Invalid value: "other": namespace of resource selector must be the same as the namespace of the policy]',
    );
  });

  it("gives a new Cluster default resource models and stamps NoExecute taints", async () => {
    const res = await api.call("POST", "/apis/cluster.karmada.io/v1alpha1/clusters", {
      apiVersion: "cluster.karmada.io/v1alpha1",
      kind: "Cluster",
      metadata: { name: "member1" },
      spec: {
        syncMode: "Push",
        apiEndpoint: "https://172.18.0.3:6443",
        zone: "z1",
        taints: [{ key: "k", effect: "NoExecute" }],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const spec = res.body.spec as Record<string, unknown>;
    expect((spec.resourceModels as unknown[]).length).toBe(9);
    expect(spec.zones).toEqual(["z1"]);
    expect(spec.zone).toBeUndefined();
    expect(spec.taints).toEqual([{ key: "k", effect: "NoExecute", timeAdded: "2024-01-02T03:04:05Z" }]);
  });
});
