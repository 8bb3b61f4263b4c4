/**
 * The resource detector, one reconcile at a time: given templates and policies, which policy
 * claims each template (labels and annotations on template and binding), what the binding
 * says, how priority and preemption decide, what a Lazy policy waits for, and how a policy
 * being deleted lets go of its templates.
 */
import { describe, expect, it } from "vitest";
import { type ReconcileFixture, withReconcileFixture } from "../../test/support/reconcile.ts";
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { RESOURCES, type ResourceRef } from "../client/client.ts";
import { ANNOTATION, FINALIZER, LABEL } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { PropagationSpec, ResourceSelector } from "../karmada/types.ts";
import { isNotFound } from "../machinery/errors.ts";
import type { Feature } from "../runtime/features.ts";
import { detectorController } from "./detector/index.ts";
import { policyKey, templateKey } from "./detector/watches.ts";

const NGINX_KEY = templateKey("apps/v1", "Deployment", "default", "nginx");
const READER_KEY = templateKey("rbac.authorization.k8s.io/v1", "ClusterRole", undefined, "reader");

function deployment(
  name = "nginx",
  opts: { replicas?: number; labels?: Record<string, string>; annotations?: Record<string, string> } = {},
): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name,
      namespace: "default",
      labels: { app: name, ...opts.labels },
      ...(opts.annotations ? { annotations: opts.annotations } : {}),
    },
    spec: {
      replicas: opts.replicas ?? 2,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            { name: "nginx", image: "nginx:1.27", resources: { requests: { cpu: "100m", memory: "64Mi" } } },
          ],
        },
      },
    },
  };
}

const clusterRole = (name: string): KubeObject => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "ClusterRole",
  metadata: { name },
  rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
});

const byName = (name: string, kind = "Deployment", apiVersion = "apps/v1"): ResourceSelector => ({
  apiVersion,
  kind,
  name,
});
const byLabel = (labels: Record<string, string>): ResourceSelector => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  labelSelector: { matchLabels: labels },
});
const allDeployments: ResourceSelector = { apiVersion: "apps/v1", kind: "Deployment" };

const placement = { clusterAffinity: { clusterNames: ["member1"] } };

function pp(name: string, selectors: ResourceSelector[], spec: Partial<PropagationSpec> = {}): KubeObject {
  return {
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name, namespace: "default" },
    spec: { resourceSelectors: selectors, placement, ...spec },
  };
}

function cpp(name: string, selectors: ResourceSelector[], spec: Partial<PropagationSpec> = {}): KubeObject {
  return {
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "ClusterPropagationPolicy",
    metadata: { name },
    spec: { resourceSelectors: selectors, placement, ...spec },
  };
}

/** The resource of an object this file creates. */
function refOf(obj: KubeObject): ResourceRef {
  switch (obj.kind) {
    case "Deployment":
      return RESOURCES.deployments;
    case "ClusterRole":
      return {
        group: "rbac.authorization.k8s.io",
        version: "v1",
        resource: "clusterroles",
        namespaced: false,
      };
    case "PropagationPolicy":
      return KARMADA.propagationPolicies;
    case "ClusterPropagationPolicy":
      return KARMADA.clusterPropagationPolicies;
    case "OverridePolicy":
      return KARMADA.overridePolicies;
    case "ResourceBinding":
      return KARMADA.resourceBindings;
    default:
      throw new Error(`no resource for ${obj.kind}`);
  }
}

async function getOrUndefined(f: ReconcileFixture, ref: ResourceRef, ns: string | undefined, name: string) {
  try {
    return await f.client.get(ref, ns, name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * Who claims an object, read from its labels and annotations and checked against the policy's
 * permanent id: `pp default/<name>`, `cpp <name>`, `none`, or what is inconsistent.
 */
async function claimOf(f: ReconcileFixture, obj: StoredObject | undefined): Promise<string> {
  if (!obj) return "absent";
  const labels = obj.metadata.labels ?? {};
  const annotations = obj.metadata.annotations ?? {};
  const claims: string[] = [];
  if (labels[LABEL.ppPermanentId] || annotations[ANNOTATION.ppName]) {
    const ns = annotations[ANNOTATION.ppNamespace];
    const name = annotations[ANNOTATION.ppName] ?? "";
    const policy = await getOrUndefined(f, KARMADA.propagationPolicies, ns, name);
    const same = policy?.metadata.labels?.[LABEL.ppPermanentId] === labels[LABEL.ppPermanentId];
    claims.push(`pp ${ns}/${name}${same ? "" : " (wrong id)"}`);
  }
  if (labels[LABEL.cppPermanentId] || annotations[ANNOTATION.cppName]) {
    const name = annotations[ANNOTATION.cppName] ?? "";
    const policy = await getOrUndefined(f, KARMADA.clusterPropagationPolicies, undefined, name);
    const same = policy?.metadata.labels?.[LABEL.cppPermanentId] === labels[LABEL.cppPermanentId];
    claims.push(`cpp ${name}${same ? "" : " (wrong id)"}`);
  }
  return claims.length > 0 ? claims.join(" + ") : "none";
}

interface Case {
  name: string;
  features?: Partial<Record<Feature, boolean>>;
  /** Without the API server's garbage collector (which would remove a binding whose owner is gone). */
  noGarbageCollector?: boolean;
  /** Created in order before the reconcile. */
  given: KubeObject[];
  /** Done after `given` (and after a first reconcile when `claimFirst`). */
  change?: (f: ReconcileFixture) => Promise<void>;
  /** Reconcile the template once before `change` (the claim the case starts from). */
  claimFirst?: boolean;
  key?: string;
  throws?: string;
  /** Who claims the template afterwards. */
  template: string;
  /** Who claims its binding (`absent`: there is none), and what its spec holds. */
  binding: string;
  spec?: Record<string, unknown>;
  /** `reason` of each Event recorded (all reconciles of the case). */
  events: string[];
  check?: (f: ReconcileFixture) => Promise<void>;
}

const templateOf = (f: ReconcileFixture, key: string) =>
  key === READER_KEY
    ? getOrUndefined(f, refOf(clusterRole("reader")), undefined, "reader")
    : getOrUndefined(f, RESOURCES.deployments, "default", "nginx");
const bindingOf = (f: ReconcileFixture, key: string) =>
  key === READER_KEY
    ? getOrUndefined(f, KARMADA.clusterResourceBindings, undefined, "reader-clusterrole")
    : getOrUndefined(f, KARMADA.resourceBindings, "default", "nginx-deployment");

const cases: Case[] = [
  {
    name: "a PP that names the template claims it and makes its binding",
    given: [pp("nginx-pp", [byName("nginx")]), deployment()],
    template: "pp default/nginx-pp",
    binding: "pp default/nginx-pp",
    spec: {
      replicas: 2,
      replicaRequirements: { resourceRequest: { cpu: "100m", memory: "64Mi" } },
      placement,
      schedulerName: "default-scheduler",
    },
    events: ["ApplyPolicySucceed"],
    async check(f) {
      const template = (await templateOf(f, NGINX_KEY))!;
      const binding = (await bindingOf(f, NGINX_KEY))!;
      expect(binding.metadata.finalizers).toEqual([FINALIZER.binding]);
      expect(binding.metadata.ownerReferences).toEqual([
        {
          apiVersion: "apps/v1",
          kind: "Deployment",
          name: "nginx",
          uid: template.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect((binding.spec as Record<string, unknown>).resource).toEqual({
        apiVersion: "apps/v1",
        kind: "Deployment",
        namespace: "default",
        name: "nginx",
        uid: template.metadata.uid,
        resourceVersion: template.metadata.resourceVersion,
      });
      expect(binding.metadata.labels?.[LABEL.rbPermanentId]).toBeTruthy();
    },
  },
  {
    name: "no policy selects the template: nothing is written",
    given: [pp("other-pp", [byName("other")]), deployment()],
    template: "none",
    binding: "absent",
    events: [],
  },
  {
    name: "a ClusterPropagationPolicy claims a namespaced template no PP selects",
    given: [cpp("all-deployments", [allDeployments]), deployment()],
    template: "cpp all-deployments",
    binding: "cpp all-deployments",
    spec: { replicas: 2 },
    events: ["ApplyPolicySucceed"],
  },
  {
    name: "a PP wins over a CPP for a namespaced template",
    given: [cpp("all-deployments", [byName("nginx")], { priority: 100 }), pp("nginx-pp", [allDeployments])],
    change: async (f) => {
      await f.client.create(RESOURCES.deployments, deployment());
    },
    template: "pp default/nginx-pp",
    binding: "pp default/nginx-pp",
    events: ["ApplyPolicySucceed"],
  },
  {
    name: "a cluster-scoped template gets a ClusterResourceBinding",
    given: [
      cpp("roles", [byName("reader", "ClusterRole", "rbac.authorization.k8s.io/v1")]),
      clusterRole("reader"),
    ],
    key: READER_KEY,
    template: "cpp roles",
    binding: "cpp roles",
    spec: { resource: expect.objectContaining({ kind: "ClusterRole", name: "reader" }) },
    events: ["ApplyPolicySucceed"],
    async check(f) {
      const binding = (await bindingOf(f, READER_KEY))!;
      expect(binding.metadata.finalizers).toEqual([FINALIZER.clusterBinding]);
      expect(binding.spec).not.toHaveProperty("replicas");
    },
  },
  {
    name: "implicit priority: a PP naming the template beats one selecting it by label",
    given: [pp("a-by-label", [byLabel({ app: "nginx" })]), pp("b-by-name", [byName("nginx")]), deployment()],
    template: "pp default/b-by-name",
    binding: "pp default/b-by-name",
    events: ["ApplyPolicySucceed"],
  },
  {
    name: "explicit priority beats implicit priority",
    given: [pp("by-name", [byName("nginx")]), pp("all", [allDeployments], { priority: 10 }), deployment()],
    template: "pp default/all",
    binding: "pp default/all",
    events: ["ApplyPolicySucceed"],
  },
  {
    name: "the binding follows the template's replicas and keeps the scheduler's clusters",
    given: [pp("nginx-pp", [byName("nginx")]), deployment()],
    claimFirst: true,
    async change(f) {
      await f.client.patch(KARMADA.resourceBindings, "default", "nginx-deployment", "merge", {
        spec: { clusters: [{ name: "member1", replicas: 2 }] },
      });
      await f.client.patch(RESOURCES.deployments, "default", "nginx", "merge", { spec: { replicas: 5 } });
    },
    template: "pp default/nginx-pp",
    binding: "pp default/nginx-pp",
    spec: { replicas: 5, clusters: [{ name: "member1", replicas: 2 }] },
    events: ["ApplyPolicySucceed"],
    async check(f) {
      const template = (await templateOf(f, NGINX_KEY))!;
      const binding = (await bindingOf(f, NGINX_KEY))!;
      expect((binding.spec as { resource: { resourceVersion: string } }).resource.resourceVersion).toBe(
        template.metadata.resourceVersion,
      );
    },
  },
  {
    name: "a claimed template its policy no longer selects is let go of, binding first",
    given: [pp("nginx-pp", [byName("nginx")]), deployment()],
    claimFirst: true,
    async change(f) {
      await f.client.patch(KARMADA.propagationPolicies, "default", "nginx-pp", "merge", {
        spec: { resourceSelectors: [byName("other")] },
      });
    },
    template: "none",
    binding: "none",
    events: ["ApplyPolicySucceed"],
  },
  {
    name: "a template its policy let go of is claimed by the next policy that selects it",
    given: [pp("nginx-pp", [byName("nginx")]), pp("fallback", [allDeployments]), deployment()],
    claimFirst: true,
    async change(f) {
      await f.client.patch(KARMADA.propagationPolicies, "default", "nginx-pp", "merge", {
        spec: { resourceSelectors: [byName("other")] },
      });
    },
    template: "pp default/fallback",
    binding: "pp default/fallback",
    events: ["ApplyPolicySucceed"],
  },
  {
    name: "without the preemption gate a later higher-priority policy does not take a claimed template",
    given: [pp("low", [byName("nginx")]), deployment()],
    claimFirst: true,
    async change(f) {
      await f.client.create(
        KARMADA.propagationPolicies,
        pp("high", [byName("nginx")], { priority: 5, preemption: "Always" }),
      );
    },
    template: "pp default/low",
    binding: "pp default/low",
    events: ["ApplyPolicySucceed"],
  },
  {
    name: "with PropagationPolicyPreemption a higher-priority PP with preemption Always takes it",
    features: { PropagationPolicyPreemption: true },
    given: [pp("low", [byName("nginx")]), deployment()],
    claimFirst: true,
    async change(f) {
      await f.client.create(
        KARMADA.propagationPolicies,
        pp("high", [byName("nginx")], { priority: 5, preemption: "Always" }),
      );
    },
    template: "pp default/high",
    binding: "pp default/high",
    events: ["ApplyPolicySucceed", "PreemptPolicySucceed"],
    async check(f) {
      const preempted = (await f.events()).find((e) => e.reason === "PreemptPolicySucceed");
      expect(preempted?.message).toBe(
        "Propagation policy(default/high) preempted propagation policy(default/low) successfully",
      );
    },
  },
  {
    name: "with PropagationPolicyPreemption a PP takes a template from a CPP whatever the priorities",
    features: { PropagationPolicyPreemption: true },
    given: [cpp("everything", [allDeployments], { priority: 100 }), deployment()],
    claimFirst: true,
    async change(f) {
      await f.client.create(
        KARMADA.propagationPolicies,
        pp("mine", [byName("nginx")], { preemption: "Always" }),
      );
    },
    template: "pp default/mine",
    binding: "pp default/mine",
    events: ["ApplyPolicySucceed", "PreemptPolicySucceed"],
  },
  {
    name: "a policy whose dependent overrides are missing waits (retried) and claims nothing",
    given: [pp("nginx-pp", [byName("nginx")], { dependentOverrides: ["nginx-op"] }), deployment()],
    throws: "waiting for dependent overrides: nginx-op",
    template: "none",
    binding: "absent",
    events: [],
  },
  {
    name: "a template another controller claimed (claimed-by) is left alone",
    given: [
      pp("nginx-pp", [byName("nginx")]),
      deployment("nginx", { labels: { [LABEL.claimedBy]: "someone" } }),
    ],
    template: "none",
    binding: "absent",
    events: [],
  },
  {
    name: "a binding left by an older template of the same name is waited for",
    noGarbageCollector: true,
    given: [
      pp("nginx-pp", [byName("nginx")]),
      {
        apiVersion: "work.karmada.io/v1alpha2",
        kind: "ResourceBinding",
        metadata: {
          name: "nginx-deployment",
          namespace: "default",
          ownerReferences: [
            { apiVersion: "apps/v1", kind: "Deployment", name: "nginx", uid: "old-uid", controller: true },
          ],
        },
        spec: {
          resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "nginx" },
        },
      },
      deployment(),
    ],
    throws: "belongs to an older Deployment (uid old-uid)",
    template: "pp default/nginx-pp",
    binding: "none",
    events: [],
  },
];

async function createAll(f: ReconcileFixture, objects: KubeObject[]): Promise<void> {
  for (const o of objects) await f.client.create(refOf(o), o);
}

describe.concurrent("resource detector reconcile", () => {
  for (const c of cases) {
    it(c.name, () =>
      withReconcileFixture(
        (ctx) => detectorController(ctx, ctx.interpreter),
        {
          ...(c.features ? { options: { features: c.features } } : {}),
          ...(c.noGarbageCollector ? { api: { controllers: false } } : {}),
        },
        async (f) => {
          const key = c.key ?? NGINX_KEY;
          await createAll(f, c.given);
          if (c.claimFirst) await f.reconcile(key);
          await c.change?.(f);
          const outcome = f.reconcile(key);
          if (c.throws) await expect(outcome).rejects.toThrow(c.throws);
          else expect(await outcome).toBeUndefined();

          expect(await claimOf(f, await templateOf(f, key))).toBe(c.template);
          const binding = await bindingOf(f, key);
          expect(await claimOf(f, binding)).toBe(c.binding);
          if (c.spec) expect(binding?.spec).toMatchObject(c.spec);
          expect((await f.events()).map((e) => e.reason)).toEqual(c.events);
          await c.check?.(f);
        },
      ),
    );
  }
});

describe("resource detector: Lazy activation and policy deletion", () => {
  it("a new policy queues itself and the templates of the kinds it selects", () =>
    withReconcileFixture(
      (ctx) => detectorController(ctx, ctx.interpreter),
      {},
      async (f) => {
        await f.client.create(RESOURCES.deployments, deployment());
        await f.client.create(RESOURCES.deployments, deployment("other"));
        await f.client.create(KARMADA.propagationPolicies, pp("nginx-pp", [byName("nginx")]));
        await f.caughtUp();
        expect([...new Set(f.enqueued)].sort()).toEqual(
          [
            policyKey(false, "default", "nginx-pp"),
            NGINX_KEY,
            templateKey("apps/v1", "Deployment", "default", "other"),
          ].sort(),
        );
      },
    ));

  it("a Lazy policy claims templates at once but makes their binding only on the template's next change", () =>
    withReconcileFixture(
      (ctx) => detectorController(ctx, ctx.interpreter),
      {},
      async (f) => {
        await f.client.create(RESOURCES.deployments, deployment());
        await f.client.create(
          KARMADA.propagationPolicies,
          pp("lazy", [byName("nginx")], { activationPreference: "Lazy" }),
        );
        await f.reconcile(NGINX_KEY);
        expect(await claimOf(f, await templateOf(f, NGINX_KEY))).toBe("pp default/lazy");
        expect(await bindingOf(f, NGINX_KEY)).toBeUndefined();

        // The claim was the detector's own write: still no binding.
        await f.reconcile(NGINX_KEY);
        expect(await bindingOf(f, NGINX_KEY)).toBeUndefined();

        // The user's change activates the policy.
        await f.client.patch(RESOURCES.deployments, "default", "nginx", "merge", { spec: { replicas: 3 } });
        await f.reconcile(NGINX_KEY);
        const binding = await bindingOf(f, NGINX_KEY);
        expect(await claimOf(f, binding)).toBe("pp default/lazy");
        expect(binding?.spec).toMatchObject({ replicas: 3 });
      },
    ));

  it("a binding follows its template's resourceVersion for an edit, not for status (a restart's relist)", () =>
    withReconcileFixture(
      (ctx) => detectorController(ctx, ctx.interpreter),
      {},
      async (f) => {
        await createAll(f, [pp("nginx-pp", [byName("nginx")]), deployment()]);
        await f.reconcile(NGINX_KEY);
        const versionOf = (b: StoredObject) =>
          (b.spec as { resource: { resourceVersion: string } }).resource.resourceVersion;
        const written = (await bindingOf(f, NGINX_KEY))!;
        expect(versionOf(written)).toBe((await templateOf(f, NGINX_KEY))!.metadata.resourceVersion);

        // Status aggregated into the template: not queued, and when the template is looked at
        // again for another reason (a controller manager's start lists it) the binding stays.
        const latest = await f.client.get(RESOURCES.deployments, "default", "nginx");
        await f.client.updateStatus(RESOURCES.deployments, { ...latest, status: { replicas: 2 } });
        await f.reconcile(NGINX_KEY);
        const kept = (await bindingOf(f, NGINX_KEY))!;
        expect(kept.metadata.resourceVersion).toBe(written.metadata.resourceVersion);

        // An edit of the template's own is followed, with the resourceVersion it made.
        await f.client.patch(RESOURCES.deployments, "default", "nginx", "merge", {
          metadata: { annotations: { note: "edited" } },
        });
        await f.reconcile(NGINX_KEY);
        const followed = (await bindingOf(f, NGINX_KEY))!;
        expect(versionOf(followed)).toBe((await templateOf(f, NGINX_KEY))!.metadata.resourceVersion);
        expect(followed.metadata.generation).toBe((written.metadata.generation ?? 0) + 1);
      },
    ));

  it("a PP being deleted lets go of its bindings and templates, then drops its finalizer", () =>
    withReconcileFixture(
      (ctx) => detectorController(ctx, ctx.interpreter),
      { api: { policyFinalizers: true } },
      async (f) => {
        await createAll(f, [pp("nginx-pp", [byName("nginx")]), deployment()]);
        await f.reconcile(NGINX_KEY);
        expect(await claimOf(f, await bindingOf(f, NGINX_KEY))).toBe("pp default/nginx-pp");

        // Not being deleted: the policy key is a no-op.
        await f.reconcile(policyKey(false, "default", "nginx-pp"));
        const policy = await f.client.get(KARMADA.propagationPolicies, "default", "nginx-pp");
        expect(policy.metadata.finalizers).toEqual([FINALIZER.propagationPolicy]);

        await f.client.delete(KARMADA.propagationPolicies, "default", "nginx-pp");
        await f.reconcile(policyKey(false, "default", "nginx-pp"));
        expect(await claimOf(f, await bindingOf(f, NGINX_KEY))).toBe("none");
        expect(await claimOf(f, await templateOf(f, NGINX_KEY))).toBe("none");
        expect(await getOrUndefined(f, KARMADA.propagationPolicies, "default", "nginx-pp")).toBeUndefined();
      },
    ));

  it("a CPP being deleted lets go of a cluster-scoped template and its ClusterResourceBinding", () =>
    withReconcileFixture(
      (ctx) => detectorController(ctx, ctx.interpreter),
      { api: { policyFinalizers: true } },
      async (f) => {
        await createAll(f, [
          cpp("roles", [byName("reader", "ClusterRole", "rbac.authorization.k8s.io/v1")]),
          clusterRole("reader"),
        ]);
        await f.reconcile(READER_KEY);
        expect(await claimOf(f, await bindingOf(f, READER_KEY))).toBe("cpp roles");

        await f.client.delete(KARMADA.clusterPropagationPolicies, undefined, "roles");
        await f.reconcile(policyKey(true, undefined, "roles"));
        expect(await claimOf(f, await bindingOf(f, READER_KEY))).toBe("none");
        expect(await claimOf(f, await templateOf(f, READER_KEY))).toBe("none");
        expect(
          await getOrUndefined(f, KARMADA.clusterPropagationPolicies, undefined, "roles"),
        ).toBeUndefined();
      },
    ));

  it("a template whose policy is being deleted is not claimed again (retried until it is gone)", () =>
    withReconcileFixture(
      (ctx) => detectorController(ctx, ctx.interpreter),
      { api: { policyFinalizers: true } },
      async (f) => {
        await createAll(f, [pp("nginx-pp", [byName("nginx")]), deployment()]);
        await f.reconcile(NGINX_KEY);
        await f.client.delete(KARMADA.propagationPolicies, "default", "nginx-pp");
        await expect(f.reconcile(NGINX_KEY)).rejects.toThrow("propagation policy nginx-pp is being deleted");
      },
    ));
});
