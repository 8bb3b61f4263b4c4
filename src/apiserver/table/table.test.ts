import { describe, expect, it } from "vitest";
import { printers } from "./columns.ts";
import { ago, MINUTE, NOW } from "./table.fixtures.ts";
import { toTable } from "./table.ts";

const cm = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name: "settings",
    namespace: "default",
    resourceVersion: "42",
    uid: "u-1",
    labels: { app: "web" },
    creationTimestamp: ago(MINUTE),
  },
  data: { a: "1" },
};

describe("toTable", () => {
  it("builds a meta.k8s.io/v1 Table with PartialObjectMetadata rows by default", () => {
    const table = toTable("/ConfigMap", [cm], {
      now: NOW,
      includeObject: "Metadata",
      resourceVersion: "57",
      continue: "tok",
    });
    expect(table).toEqual({
      kind: "Table",
      apiVersion: "meta.k8s.io/v1",
      metadata: { resourceVersion: "57", continue: "tok" },
      columnDefinitions: [
        {
          name: "Name",
          type: "string",
          format: "name",
          description: expect.stringContaining("Name must be unique"),
          priority: 0,
        },
        { name: "Data", type: "string", format: "", description: expect.any(String), priority: 0 },
        {
          name: "Age",
          type: "string",
          format: "",
          description: expect.stringContaining("CreationTimestamp"),
          priority: 0,
        },
      ],
      rows: [
        {
          cells: ["settings", 1, "60s"],
          object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: cm.metadata },
        },
      ],
    });
  });

  it("carries the whole object, or none", () => {
    expect(toTable("/ConfigMap", [cm], { now: NOW, includeObject: "Object" }).rows[0]?.object).toBe(cm);
    const none = toTable("/ConfigMap", [cm], { now: NOW, includeObject: "None" });
    expect(none.rows[0]).toEqual({ cells: ["settings", 1, "60s"] });
    expect(none.metadata).toEqual({});
  });

  it("falls back to Name and Created At for kinds without a printer", () => {
    const table = toTable(
      "example.com/Thing",
      [{ metadata: { name: "t", creationTimestamp: "2024-01-02T03:04:05Z" } }],
      { now: NOW, includeObject: "None" },
    );
    expect(table.columnDefinitions.map((c) => [c.name, c.type])).toEqual([
      ["Name", "string"],
      ["Created At", "date"],
    ]);
    expect(table.rows[0]?.cells).toEqual(["t", "2024-01-02T03:04:05Z"]);
  });

  it("returns fresh column definitions every time", () => {
    const a = toTable("/Pod", [], { now: NOW, includeObject: "None" });
    const first = a.columnDefinitions[0];
    if (first) first.name = "changed";
    expect(toTable("/Pod", [], { now: NOW, includeObject: "None" }).columnDefinitions[0]?.name).toBe("Name");
  });

  it("every printer has one name column and rows as wide as its columns", () => {
    for (const [key, printer] of Object.entries(printers)) {
      expect(
        printer.columns.filter((c) => c.format === "name"),
        key,
      ).toHaveLength(1);
      const row = printer.row({ metadata: { name: "x" } }, NOW);
      expect(row, key).toHaveLength(printer.columns.length);
    }
  });

  it("covers the built-in kinds", () => {
    expect(Object.keys(printers).sort()).toEqual(
      [
        "/ConfigMap",
        "/Endpoints",
        "/Event",
        "/LimitRange",
        "/Namespace",
        "/Node",
        "/PersistentVolume",
        "/PersistentVolumeClaim",
        "/Pod",
        "/PodTemplate",
        "/ReplicationController",
        "/ResourceQuota",
        "/Secret",
        "/Service",
        "/ServiceAccount",
        "apiextensions.k8s.io/CustomResourceDefinition",
        "apiregistration.k8s.io/APIService",
        "apps/ControllerRevision",
        "apps/DaemonSet",
        "apps/Deployment",
        "apps/ReplicaSet",
        "apps/StatefulSet",
        "autoscaling/HorizontalPodAutoscaler",
        "batch/CronJob",
        "batch/Job",
        "certificates.k8s.io/CertificateSigningRequest",
        "cluster.karmada.io/Cluster",
        "coordination.k8s.io/Lease",
        "discovery.k8s.io/EndpointSlice",
        "events.k8s.io/Event",
        "networking.k8s.io/Ingress",
        "networking.k8s.io/IngressClass",
        "networking.k8s.io/NetworkPolicy",
        "policy/PodDisruptionBudget",
        "rbac.authorization.k8s.io/ClusterRole",
        "rbac.authorization.k8s.io/ClusterRoleBinding",
        "rbac.authorization.k8s.io/Role",
        "rbac.authorization.k8s.io/RoleBinding",
        "scheduling.k8s.io/PriorityClass",
        "storage.k8s.io/StorageClass",
      ].sort(),
    );
  });
});
