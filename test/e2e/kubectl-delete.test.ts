/**
 * `kubectl delete`: cascading (background, foreground, orphan) through ownerReferences and the
 * garbage collector, `--all`, and namespace deletion removing everything inside.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestServer, type TestServer } from "../support/kubectl.ts";
import { configMap, deployment, manifest } from "../support/kubectl-output.ts";

const NS = "del";

describe.concurrent("kubectl delete", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    expect((await s.kubectl(["create", "namespace", NS])).code).toBe(0);
  });
  afterAll(async () => {
    await s.close();
  });

  const k = (...args: string[]) => s.kubectl(["-n", NS, ...args]);
  const exists = async (name: string): Promise<boolean> => {
    const r = await k("get", "cm", name, "-o", "name", "--ignore-not-found");
    expect(r.stderr).toBe("");
    return r.stdout.trim() !== "";
  };

  /** A parent ConfigMap and two children owned by it; returns the parent's uid. */
  async function family(parent: string, blockOwnerDeletion = false): Promise<string> {
    expect((await k("create", "configmap", parent, "--from-literal=role=parent")).code).toBe(0);
    const uid = (await k("get", "cm", parent, "-o", "jsonpath={.metadata.uid}")).stdout;
    expect(uid).toMatch(/^[0-9a-f-]{36}$/);
    const owner = {
      apiVersion: "v1",
      kind: "ConfigMap",
      name: parent,
      uid,
      ...(blockOwnerDeletion ? { blockOwnerDeletion: true } : {}),
    };
    const children = [1, 2].map((i) =>
      configMap(`${parent}-child-${i}`, { role: "child" }, { metadata: { ownerReferences: [owner] } }),
    );
    const r = await s.kubectl(["-n", NS, "apply", "-f", "-"], { stdin: manifest(...children) });
    expect(r.code).toBe(0);
    return uid;
  }

  it("--cascade=background (the default) deletes the dependents eventually", async () => {
    await family("bg");
    expect(await k("delete", "cm", "bg")).toEqual({
      code: 0,
      stdout: 'configmap "bg" deleted\n',
      stderr: "",
    });
    expect(await exists("bg")).toBe(false);
    await eventually(
      async () => !(await exists("bg-child-1")) && !(await exists("bg-child-2")),
      "children deleted",
      40,
    );
  });

  it("--cascade=orphan keeps the dependents and removes their owner reference", async () => {
    await family("orph");
    expect(await k("delete", "cm", "orph", "--cascade=orphan")).toEqual({
      code: 0,
      stdout: 'configmap "orph" deleted\n',
      stderr: "",
    });
    expect(await exists("orph")).toBe(false);
    for (const child of ["orph-child-1", "orph-child-2"]) {
      await eventually(
        async () => (await k("get", "cm", child, "-o", "jsonpath={.metadata.ownerReferences}")).stdout === "",
        `${child} orphaned`,
        30,
      );
    }
    expect(await exists("orph-child-1")).toBe(true);
    expect(await exists("orph-child-2")).toBe(true);
  });

  it("--cascade=foreground deletes the dependents first, then the owner", async () => {
    await family("fg", true);
    const watch = s.kubectlStart([
      "-n",
      NS,
      "get",
      "cm",
      "-w",
      "--output-watch-events",
      "-o",
      'jsonpath={.type} {.object.metadata.name}{"\\n"}',
    ]);
    await eventually(async () => watch.stdout().includes("ADDED fg-child-2\n"), "watch listed the family");
    expect(await k("delete", "cm", "fg", "--cascade=foreground")).toEqual({
      code: 0,
      stdout: 'configmap "fg" deleted\n',
      stderr: "",
    });
    // kubectl waited for the owner to be gone; the blocking dependents were gone before it.
    expect(await exists("fg")).toBe(false);
    expect(await exists("fg-child-1")).toBe(false);
    expect(await exists("fg-child-2")).toBe(false);
    await eventually(async () => watch.stdout().includes("DELETED fg\n"), "owner's DELETED event");
    const events = (await watch.stop()).stdout.split("\n").filter((l) => / fg(-child-\d)?$/.test(l));
    // The owner is marked (MODIFIED: deletionTimestamp + foregroundDeletion finalizer) before the
    // children go, and is deleted last.
    const ownerMarked = events.indexOf("MODIFIED fg");
    expect(ownerMarked).toBeGreaterThan(-1);
    expect(events.indexOf("DELETED fg-child-1")).toBeGreaterThan(ownerMarked);
    expect(events.indexOf("DELETED fg-child-2")).toBeGreaterThan(ownerMarked);
    expect(events.at(-1)).toBe("DELETED fg");
  });

  it("--all deletes every object of the type in the namespace", async () => {
    expect((await k("create", "namespace", "del-all")).code).toBe(0);
    const cms = ["a", "b", "c"].map((n) => configMap(n, { k: n }, { namespace: "del-all" }));
    expect((await s.kubectl(["apply", "-f", "-"], { stdin: manifest(...cms) })).code).toBe(0);
    expect(await s.kubectl(["-n", "del-all", "delete", "cm", "--all"])).toEqual({
      code: 0,
      stdout: 'configmap "a" deleted\nconfigmap "b" deleted\nconfigmap "c" deleted\n',
      stderr: "",
    });
    const left = await s.kubectl(["-n", "del-all", "get", "cm"]);
    expect(left).toEqual({ code: 0, stdout: "", stderr: "No resources found in del-all namespace.\n" });
  });

  it("-l deletes only the matching objects", async () => {
    const cms = [
      configMap("l1", {}, { namespace: NS, labels: { sel: "yes" } }),
      configMap("l2", {}, { namespace: NS, labels: { sel: "no" } }),
    ];
    expect((await s.kubectl(["apply", "-f", "-"], { stdin: manifest(...cms) })).code).toBe(0);
    expect(await k("delete", "cm", "-l", "sel=yes")).toEqual({
      code: 0,
      stdout: 'configmap "l1" deleted\n',
      stderr: "",
    });
    expect(await exists("l2")).toBe(true);
  });

  it("deleting a namespace removes its content and then the namespace", async () => {
    const objects = [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "doomed" } },
      configMap("c", { a: "1" }, { namespace: "doomed" }),
      deployment("d", { namespace: "doomed" }),
      {
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "p", namespace: "doomed" },
        spec: {
          resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "d" }],
          placement: { clusterAffinity: { clusterNames: ["member1"] } },
        },
      },
    ];
    expect((await s.kubectl(["apply", "-f", "-"], { stdin: manifest(...objects) })).code).toBe(0);
    // kubectl waits until the namespace is gone.
    expect(await s.kubectl(["delete", "namespace", "doomed"])).toEqual({
      code: 0,
      stdout: 'namespace "doomed" deleted\n',
      stderr: "",
    });
    expect(await s.kubectl(["get", "namespace", "doomed"])).toEqual({
      code: 1,
      stdout: "",
      stderr: 'Error from server (NotFound): namespaces "doomed" not found\n',
    });
    const leftovers = await s.kubectl([
      "get",
      "cm,deploy,pp",
      "-A",
      "--field-selector",
      "metadata.namespace=doomed",
      "-o",
      "name",
    ]);
    // With -o name kubectl prints nothing at all for empty lists (its generic printer has no "No resources found").
    expect(leftovers).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("creating in a terminating namespace is forbidden", async () => {
    const objects = [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "closing" } },
      configMap(
        "held",
        { a: "1" },
        { namespace: "closing", metadata: { finalizers: ["e2e.example.com/hold"] } },
      ),
    ];
    expect((await s.kubectl(["apply", "-f", "-"], { stdin: manifest(...objects) })).code).toBe(0);
    expect(await s.kubectl(["delete", "namespace", "closing", "--wait=false"])).toMatchObject({ code: 0 });
    await eventually(
      async () =>
        (await s.kubectl(["get", "ns", "closing", "-o", "jsonpath={.status.phase}"])).stdout ===
        "Terminating",
      "namespace terminating",
      30,
    );
    const r = await s.kubectl(["-n", "closing", "create", "configmap", "late"]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr:
        'error: failed to create configmap: configmaps "late" is forbidden: unable to create new content in namespace closing because it is being terminated\n',
    });
    // Releasing the finalizer lets the namespace finish.
    expect(
      (
        await s.kubectl([
          "-n",
          "closing",
          "patch",
          "cm",
          "held",
          "--type",
          "merge",
          "-p",
          '{"metadata":{"finalizers":null}}',
        ])
      ).code,
    ).toBe(0);
    await eventually(
      async () => (await s.kubectl(["get", "ns", "closing"])).code === 1,
      "namespace gone",
      40,
    );
  });
});
