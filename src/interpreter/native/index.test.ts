import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/meta.ts";
import { nativeInterpreter } from "./index.ts";
import { GVK } from "./kinds.ts";
import { reflectNativeStatus } from "./reflect-status.ts";

/** A minimal object of `gvk` that every hook accepts. */
function sample(gvk: string): KubeObject {
  const slash = gvk.lastIndexOf("/");
  return {
    apiVersion: gvk.slice(0, slash),
    kind: gvk.slice(slash + 1),
    metadata: {
      name: "x",
      namespace: "ns",
      generation: 1,
      annotations: { "resourcetemplate.karmada.io/generation": "1" },
    },
    spec: { replicas: 1, template: { spec: {} } },
    status: {},
  };
}

const ALL = Object.values(GVK);

/** Which GVKs each operation has a native hook for (upstream's registration tables). */
const COVERAGE: Record<string, { covered: readonly string[]; has: (obj: KubeObject) => boolean }> = {
  InterpretReplica: {
    covered: [GVK.deployment, GVK.replicaSet, GVK.statefulSet, GVK.job, GVK.pod],
    has: (obj) => nativeInterpreter.getReplicas(obj) !== undefined,
  },
  ReviseReplica: {
    covered: [GVK.deployment, GVK.replicaSet, GVK.statefulSet, GVK.job],
    has: (obj) => nativeInterpreter.reviseReplica(obj, 2) !== undefined,
  },
  Retain: {
    covered: [
      GVK.deployment,
      GVK.pod,
      GVK.service,
      GVK.serviceAccount,
      GVK.persistentVolumeClaim,
      GVK.persistentVolume,
      GVK.job,
      GVK.secret,
    ],
    has: (obj) => nativeInterpreter.retain(obj, obj) !== undefined,
  },
  InterpretStatus: {
    covered: [
      GVK.deployment,
      GVK.replicaSet,
      GVK.service,
      GVK.ingress,
      GVK.job,
      GVK.daemonSet,
      GVK.statefulSet,
      GVK.podDisruptionBudget,
      GVK.horizontalPodAutoscaler,
    ],
    has: (obj) => reflectNativeStatus(obj) !== undefined,
  },
  InterpretHealth: {
    covered: [
      GVK.deployment,
      GVK.statefulSet,
      GVK.replicaSet,
      GVK.daemonSet,
      GVK.service,
      GVK.ingress,
      GVK.persistentVolumeClaim,
      GVK.pod,
      GVK.podDisruptionBudget,
    ],
    has: (obj) => nativeInterpreter.interpretHealth(obj) !== undefined,
  },
  AggregateStatus: {
    covered: [
      GVK.deployment,
      GVK.replicaSet,
      GVK.service,
      GVK.ingress,
      GVK.job,
      GVK.cronJob,
      GVK.daemonSet,
      GVK.statefulSet,
      GVK.pod,
      GVK.persistentVolume,
      GVK.persistentVolumeClaim,
      GVK.podDisruptionBudget,
      GVK.horizontalPodAutoscaler,
    ],
    has: (obj) => nativeInterpreter.aggregateStatus(obj, []) !== undefined,
  },
  InterpretDependency: {
    covered: [
      GVK.deployment,
      GVK.replicaSet,
      GVK.job,
      GVK.cronJob,
      GVK.pod,
      GVK.daemonSet,
      GVK.statefulSet,
      GVK.ingress,
      GVK.serviceImport,
    ],
    has: (obj) => nativeInterpreter.getDependencies(obj) !== undefined,
  },
};

describe("native interpreter coverage", () => {
  for (const [operation, { covered, has }] of Object.entries(COVERAGE)) {
    it(`${operation}: exactly upstream's kinds`, () => {
      const hooked = [...ALL, "v1/ConfigMap", "apps/v1beta1/Deployment", "example.io/v1/Deployment"].filter(
        (gvk) => has(sample(gvk)),
      );
      expect(hooked.sort()).toEqual([...covered].sort());
    });
  }

  it("never mutates its inputs", () => {
    for (const gvk of ALL) {
      const obj = sample(gvk);
      const before = structuredClone(obj);
      nativeInterpreter.getReplicas(obj);
      nativeInterpreter.reviseReplica(obj, 7);
      nativeInterpreter.retain(obj, sample(gvk));
      nativeInterpreter.reflectStatus(obj);
      nativeInterpreter.interpretHealth(obj);
      nativeInterpreter.aggregateStatus(obj, [{ clusterName: "a", status: { replicas: 1 } }]);
      nativeInterpreter.getDependencies(obj);
      expect(obj, gvk).toEqual(before);
    }
  });
});
