/**
 * Smooth upgrades (issue H §6): a `karmada up` fleet written by the previous release
 * (test/fixtures/upgrade/0934daf: control plane and member SQLite stores, nginx propagated)
 * resumes under this release with nothing lost: its clusters come back Ready, the workload's
 * member copies are the same objects, not made again, and new work propagates.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually } from "../support/kubectl.ts";

const SEED = fileURLToPath(new URL("../fixtures/upgrade/0934daf", import.meta.url));

interface Obj {
  metadata: { name: string; uid: string; creationTimestamp: string };
  status?: { readyReplicas?: number; conditions?: Array<{ type: string; status: string }> };
}
interface List {
  items: Obj[];
}

describe("a fleet written by the previous release", { timeout: 180_000 }, () => {
  let fleet: TestFleet;
  const { kubectl, ok, getJson } = fleetKubectl<List & Obj>(() => fleet);
  const started = Date.now();

  beforeAll(async () => {
    fleet = await startTestFleet("upgrade", 3, { seed: SEED });
  }, 120_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  it("resumes with its clusters, its workload and its member copies", async () => {
    const clusters = await eventually(
      async () => {
        const list = await getJson("karmada-apiserver", ["get", "clusters"]);
        const ready = (list?.items ?? []).filter((c) =>
          c.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True"),
        );
        return ready.length === 3 ? ready : undefined;
      },
      "three Ready clusters",
      300,
      100,
    );
    expect(clusters.map((c) => c.metadata.name).sort()).toEqual(["member1", "member2", "member3"]);
    for (const member of ["member1", "member2"]) {
      const copy = await getJson(member, ["get", "deployment", "nginx"]);
      expect(copy?.metadata.name).toBe("nginx");
      // The same object the previous release made: not deleted and made again on resume.
      expect(Date.parse(copy!.metadata.creationTimestamp)).toBeLessThan(started);
    }
    const template = await getJson("karmada-apiserver", ["get", "deployment", "nginx"]);
    expect(Date.parse(template!.metadata.creationTimestamp)).toBeLessThan(started);
    await eventually(
      async () =>
        (await getJson("karmada-apiserver", ["get", "deployment", "nginx"]))?.status?.readyReplicas === 2,
      "nginx 2/2",
      300,
      100,
    );
  });

  it("carries on: new work propagates", async () => {
    await ok(
      kubectl("karmada-apiserver", [
        "create",
        "deployment",
        "after-upgrade",
        "--image=nginx",
        "--replicas=1",
      ]),
    );
    await ok(
      kubectl(
        "karmada-apiserver",
        ["apply", "-f", "-"],
        JSON.stringify({
          apiVersion: "policy.karmada.io/v1alpha1",
          kind: "PropagationPolicy",
          metadata: { name: "after-upgrade", namespace: "default" },
          spec: {
            resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "after-upgrade" }],
            placement: { clusterAffinity: { clusterNames: ["member3"] } },
          },
        }),
      ),
    );
    await eventually(
      async () =>
        (await getJson("member3", ["get", "deployment", "after-upgrade"]))?.metadata.name === "after-upgrade",
      "the new workload on the Pull member",
      300,
      100,
    );
  });
});
