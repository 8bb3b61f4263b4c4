import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimulationReport } from "../../simulate/types.ts";
import { readManifests, reportText } from "./simulate.ts";

const base: Omit<SimulationReport, "bindings" | "templates"> = {
  changes: ["cluster m1 removed"],
  features: { Failover: false, PropagationPolicyPreemption: false },
  warnings: [],
};

describe("reportText", () => {
  it("bindings: cluster-scoped ones, dependencies that follow, failures that keep the placement", () => {
    const text = reportText({
      ...base,
      bindings: {
        summary: { bindings: 5, moved: 2, unschedulable: 1 },
        changes: [
          {
            kind: "ClusterResourceBinding",
            name: "ns-namespace",
            resource: { apiVersion: "v1", kind: "Namespace", name: "ns" },
            workload: false,
            before: [{ name: "m1" }],
            after: [{ name: "m2" }],
            shifts: [
              { cluster: "m1", before: 0, after: null, why: "cluster m1 is being removed" },
              { cluster: "m2", before: null, after: 0 },
            ],
            trigger: "NonWorkload",
          },
          {
            kind: "ResourceBinding",
            namespace: "default",
            name: "conf-configmap",
            resource: { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "conf" },
            workload: false,
            before: [{ name: "m1" }],
            after: [],
            shifts: [{ cluster: "m1", before: 0, after: null }],
            follows: ["default/web-deployment"],
          },
          {
            kind: "ResourceBinding",
            namespace: "default",
            name: "big-deployment",
            resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "big" },
            replicas: 9,
            workload: true,
            before: [{ name: "m2", replicas: 9 }],
            after: [{ name: "m2", replicas: 9 }],
            shifts: [],
            trigger: "ReplicasChanged",
            failure: { reason: "Unschedulable", message: "failed to assign replicas: no room" },
          },
        ],
      },
    });
    expect(text).toBe(
      [
        "NAMESPACE   BINDING          CLUSTER   BEFORE   AFTER    REASON",
        "-           ns-namespace     m1        placed   -        cluster m1 is being removed",
        "-           ns-namespace     m2        -        placed   rescheduled (NonWorkload)",
        "default     conf-configmap   m1        placed   -        follows default/web-deployment",
        "default     big-deployment   -                           unschedulable (Unschedulable): failed to assign replicas: no room",
        "",
        "5 bindings, 2 would move, 1 unschedulable (cluster m1 removed).",
        "",
      ].join("\n"),
    );
  });

  it("templates: every outcome", () => {
    const text = reportText({
      ...base,
      templates: {
        summary: { templates: 3, scheduled: 1, unchanged: 0, unschedulable: 1, notPropagated: 1 },
        results: [
          {
            source: "a.yaml",
            apiVersion: "v1",
            kind: "ConfigMap",
            namespace: "default",
            name: "c",
            outcome: "Scheduled",
            policy: { kind: "ClusterPropagationPolicy", name: "all", fromFile: false },
            workload: false,
            placement: [{ name: "m1" }],
            clusters: [
              { name: "m1", selected: true },
              { name: "m2", deleting: true },
              { name: "m3", selected: false, score: 0 },
            ],
          },
          {
            source: "a.yaml",
            apiVersion: "apps/v1",
            kind: "Deployment",
            namespace: "default",
            name: "big",
            outcome: "Unschedulable",
            message: "0/1 clusters are available: 1 cluster(s) did not have the API resource.",
            failure: {
              reason: "NoClusterFit",
              message: "0/1 clusters are available: 1 cluster(s) did not have the API resource.",
            },
            policy: { kind: "PropagationPolicy", namespace: "default", name: "big", fromFile: true },
            workload: true,
            replicas: 2,
            placement: [],
            clusters: [
              { name: "m1", filteredBy: "APIEnablement", reason: "cluster(s) did not have the API resource" },
            ],
          },
          {
            source: "a.yaml",
            apiVersion: "v1",
            kind: "Secret",
            namespace: "kube-system",
            name: "s",
            outcome: "NotPropagated",
            message: "namespace kube-system is not propagated by Karmada",
            placement: [],
            clusters: [],
          },
        ],
      },
    });
    expect(text).toBe(
      [
        "NAMESPACE     TEMPLATE         POLICY    CLUSTER   RESULT",
        "default       ConfigMap/c      cpp/all   m1        placed",
        "default       ConfigMap/c      cpp/all   m2        skipped: the cluster is being removed",
        "default       ConfigMap/c      cpp/all   m3        passed, not selected",
        "default       Deployment/big   pp/big    -         unschedulable (NoClusterFit): 0/1 clusters are available: 1 cluster(s) did not have the API resource.",
        "default       Deployment/big   pp/big    m1        filtered out by APIEnablement: cluster(s) did not have the API resource",
        "kube-system   Secret/s         <none>    -         not propagated: namespace kube-system is not propagated by Karmada",
        "",
        "3 templates, 1 scheduled, 0 unchanged, 1 unschedulable, 1 not propagated.",
        "",
      ].join("\n"),
    );
  });
});

describe("readManifests", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "simulate-"));
    await mkdir(join(dir, "nested"));
    await writeFile(join(dir, "b.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n");
    await writeFile(
      join(dir, "a.json"),
      '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}',
    );
    await writeFile(join(dir, "notes.txt"), "not a manifest");
    await writeFile(join(dir, "nested", "c.yml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const names = (ms: Awaited<ReturnType<typeof readManifests>>) => ms.map((m) => m.object.metadata.name);
  const stdin = async () => "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-stdin}\n";

  it("reads a directory's manifests in name order, nested ones with -R, and stdin", async () => {
    expect(names(await readManifests([dir], false, stdin))).toEqual(["a", "b"]);
    expect(names(await readManifests([dir], true, stdin))).toEqual(["a", "b", "c"]);
    expect(names(await readManifests([join(dir, "b.yaml"), "-"], false, stdin))).toEqual(["b", "from-stdin"]);
  });

  it("says which path is missing or holds nothing", async () => {
    await expect(readManifests([join(dir, "gone.yaml")], false, stdin)).rejects.toThrow(
      `the path "${join(dir, "gone.yaml")}" does not exist`,
    );
    await mkdir(join(dir, "empty"));
    await expect(readManifests([join(dir, "empty")], false, stdin)).rejects.toThrow(
      `no objects passed to simulate: ${join(dir, "empty")} holds no .json, .yaml or .yml files`,
    );
  });
});
