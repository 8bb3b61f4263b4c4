import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bindingReferenceKey } from "../../src/karmada/names.ts";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually } from "../support/kubectl.ts";
import { configMap, manifest } from "../support/kubectl-output.ts";

type Obj = {
  metadata: {
    name: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: Array<{ kind: string; name: string; uid: string }>;
  };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
};

const DEPLOYMENT = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "app", namespace: "default", labels: { app: "app" } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: "app" } },
    template: {
      metadata: { labels: { app: "app" } },
      spec: {
        containers: [
          {
            name: "app",
            image: "nginx:1.25",
            envFrom: [{ secretRef: { name: "app-secret" } }],
            volumeMounts: [{ name: "config", mountPath: "/etc/app" }],
          },
        ],
        volumes: [{ name: "config", configMap: { name: "app-config" } }],
      },
    },
  },
};

const policy = (clusters: string[]) => ({
  apiVersion: "policy.karmada.io/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "app", namespace: "default" },
  spec: {
    propagateDeps: true,
    resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "app" }],
    placement: {
      clusterAffinity: { clusterNames: clusters },
      replicaScheduling: { replicaSchedulingType: "Duplicated" },
    },
  },
});

describe("dependencies distributor on karmada up", () => {
  let fleet: TestFleet;

  const { kubectl, cp, ok, getJson } = fleetKubectl<Obj>(() => fleet);
  const exists = async (context: string, args: string[]): Promise<boolean> =>
    (await kubectl(context, ["get", ...args])).code === 0;
  /** Adds the control plane's bindings, Works and events to a timeout's message. */
  const withDump = async <T>(p: Promise<T>): Promise<T> =>
    p.catch(async (err) => {
      const dump = await Promise.all([
        cp(["get", "rb,works", "-A", "-o", "yaml"]),
        cp(["get", "events", "-A"]),
      ]);
      throw new Error(`${(err as Error).message}\n${dump.map((d) => d.stdout + d.stderr).join("\n----\n")}`);
    });

  beforeAll(async () => {
    fleet = await startTestFleet("dependencies", 2);
  }, 60_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  it("the ConfigMap and the Secret follow the Deployment to both members through attached bindings", async () => {
    await ok(
      cp(
        ["apply", "-f", "-"],
        manifest(
          configMap("app-config", { "app.conf": "level=info\n" }, { namespace: "default" }),
          {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: "app-secret", namespace: "default" },
            stringData: { PASSWORD: "s3cret" },
          },
          DEPLOYMENT,
          policy(["member1", "member2"]),
        ),
      ),
    );
    for (const member of ["member1", "member2"]) {
      for (const what of [
        ["deployment", "app"],
        ["configmap", "app-config"],
        ["secret", "app-secret"],
      ]) {
        await withDump(
          eventually(async () => exists(member, what), `${what.join(" ")} in ${member}`, 300, 100),
        );
      }
    }
    const cm = (await getJson("member1", ["get", "configmap", "app-config"]))!;
    expect(cm.data).toEqual({ "app.conf": "level=info\n" });
    expect(cm.metadata.labels).toMatchObject({ "karmada.io/managed": "true" });
    expect(cm.metadata.annotations).toMatchObject({
      "resourcebinding.karmada.io/name": "app-config-configmap",
      "resourcebinding.karmada.io/namespace": "default",
    });

    const rb = (await getJson("karmada-apiserver", ["get", "rb", "app-deployment"]))!;
    const id = rb.metadata.labels?.["resourcebinding.karmada.io/permanent-id"];
    expect(id).toBeTruthy();
    expect(rb.metadata.finalizers).toContain("karmada.io/binding-dependencies-distributor");
    expect(rb.metadata.annotations?.["resourcebinding.karmada.io/dependencies"]).toBe(
      '[{"apiVersion":"v1","kind":"ConfigMap","namespace":"default","name":"app-config"},' +
        '{"apiVersion":"v1","kind":"Secret","namespace":"default","name":"app-secret"}]',
    );

    const dependedBy = `resourcebinding.karmada.io/depended-by-${bindingReferenceKey("app-deployment", "default")}`;
    for (const [name, kind, object] of [
      ["app-config-configmap", "ConfigMap", "app-config"],
      ["app-secret-secret", "Secret", "app-secret"],
    ] as const) {
      const attached = (await getJson("karmada-apiserver", ["get", "rb", name]))!;
      expect(attached.metadata.labels?.[dependedBy]).toBe(id);
      expect(attached.metadata.labels?.["propagationpolicy.karmada.io/permanent-id"]).toBeUndefined();
      const source = (await getJson("karmada-apiserver", ["get", kind.toLowerCase(), object]))!;
      expect(attached.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind, name: object, uid: source.metadata.uid }),
      ]);
      expect(attached.metadata.finalizers).toContain("karmada.io/binding-controller");
      expect(attached.spec).toMatchObject({
        resource: { apiVersion: "v1", kind, namespace: "default", name: object, uid: source.metadata.uid },
        requiredBy: [
          {
            namespace: "default",
            name: "app-deployment",
            clusters: [
              { name: "member1", replicas: 2 },
              { name: "member2", replicas: 2 },
            ],
          },
        ],
        conflictResolution: "Abort",
        preserveResourcesOnDeletion: false,
      });
      // Attached bindings are not scheduled: their clusters come from requiredBy only.
      expect(attached.spec?.clusters).toBeUndefined();
      expect(attached.spec?.placement).toBeUndefined();
    }
    const events = await ok(cp(["get", "events", "--field-selector", "involvedObject.name=app-deployment"]));
    expect(events).toContain("SyncScheduleResultToDependenciesSucceed");
  });

  it("a change of the ConfigMap reaches the members", async () => {
    await ok(
      cp([
        "patch",
        "configmap",
        "app-config",
        "--type",
        "merge",
        "-p",
        '{"data":{"app.conf":"level=debug\\n"}}',
      ]),
    );
    for (const member of ["member1", "member2"]) {
      await withDump(
        eventually(
          async () =>
            (await getJson(member, ["get", "configmap", "app-config"]))?.data?.["app.conf"] ===
            "level=debug\n",
          `the new ConfigMap data in ${member}`,
          300,
          100,
        ),
      );
    }
  });

  it("narrowing the policy to member1 withdraws the dependencies from member2", async () => {
    await ok(cp(["apply", "-f", "-"], manifest(policy(["member1"]))));
    for (const what of [
      ["deployment", "app"],
      ["configmap", "app-config"],
      ["secret", "app-secret"],
    ]) {
      await withDump(
        eventually(
          async () => !(await exists("member2", what)),
          `${what.join(" ")} gone from member2`,
          300,
          100,
        ),
      );
      expect(await exists("member1", what), `${what.join(" ")} still in member1`).toBe(true);
    }
    const attached = (await getJson("karmada-apiserver", ["get", "rb", "app-config-configmap"]))!;
    expect(attached.spec?.requiredBy).toEqual([
      { namespace: "default", name: "app-deployment", clusters: [{ name: "member1", replicas: 2 }] },
    ]);
  });

  it("deleting the Deployment removes the attached bindings and the member copies, not the templates", async () => {
    await ok(cp(["delete", "deployment", "app"]));
    for (const rb of ["app-deployment", "app-config-configmap", "app-secret-secret"]) {
      await withDump(
        eventually(async () => !(await exists("karmada-apiserver", ["rb", rb])), `rb ${rb} gone`, 300, 100),
      );
    }
    for (const what of [
      ["deployment", "app"],
      ["configmap", "app-config"],
      ["secret", "app-secret"],
    ]) {
      await withDump(
        eventually(
          async () => !(await exists("member1", what)),
          `${what.join(" ")} gone from member1`,
          300,
          100,
        ),
      );
    }
    expect(await exists("karmada-apiserver", ["configmap", "app-config"])).toBe(true);
    expect(await exists("karmada-apiserver", ["secret", "app-secret"])).toBe(true);
  });
});
