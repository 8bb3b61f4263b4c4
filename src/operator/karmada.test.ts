import { describe, expect, it } from "vitest";
import {
  instanceNames,
  type KarmadaObject,
  type KarmadaSpec,
  resourceName,
  validateKarmada,
  withDefaults,
} from "./karmada.ts";
import { mergeExtraArgs } from "./manifests.ts";

const karmada = (name: string, spec: KarmadaSpec): KarmadaObject => ({
  apiVersion: "operator.karmada.io/v1alpha1",
  kind: "Karmada",
  metadata: { name, namespace: "ns", uid: `uid-${name}` },
  spec,
});

describe("the operator's Karmada", () => {
  it("names objects by upstream's rule: <name>-<suffix> only when the name contains karmada", () => {
    expect(resourceName("karmada-demo", "apiserver")).toBe("karmada-demo-apiserver");
    expect(resourceName("foo", "apiserver")).toBe("foo-karmada-apiserver");
    expect(instanceNames("foo").adminConfig).toBe("foo-karmada-admin-config");
  });

  it("defaults as upstream: a local etcd with an emptyDir, images and replicas, search only when present", () => {
    const s = withDefaults({});
    expect(s.hostCluster?.networking?.dnsDomain).toBe("cluster.local");
    expect(s.components?.etcd?.local).toMatchObject({
      imageRepository: "registry.k8s.io/etcd",
      imageTag: "3.6.8-0",
      replicas: 1,
      volumeData: { emptyDir: {} },
      priorityClassName: "system-node-critical",
    });
    expect(s.components?.karmadaAPIServer).toMatchObject({
      serviceType: "ClusterIP",
      serviceSubnet: "10.96.0.0/12",
    });
    expect(s.components?.karmadaMetricsAdapter?.replicas).toBe(2);
    expect(s.components?.karmadaSearch).toBeUndefined();
    expect(withDefaults({ components: { karmadaSearch: {} } }).components?.karmadaSearch?.replicas).toBe(1);
    const external = withDefaults({ components: { etcd: { external: { endpoints: ["https://e:2379"] } } } });
    expect(external.components?.etcd?.local).toBeUndefined();
    // Defaulting twice changes nothing (the operator writes the spec back only when it changed).
    expect(withDefaults(s)).toEqual(s);
  });

  it("validates as upstream's webhook and the CRD's CEL rules", () => {
    expect(validateKarmada(karmada("k", withDefaults({})))).toEqual([]);
    expect(validateKarmada(karmada("k", { components: {} }))).toEqual([
      "spec.components.etcd: Invalid value: null: unexpected empty etcd configuration",
    ]);
    const errs = validateKarmada(
      karmada("karmada-x", {
        hostCluster: { secretRef: { name: "remote" } },
        components: {
          etcd: { external: { endpoints: ["https://e:2379"], secretRef: { name: "mine" } } },
          karmadaAPIServer: { serviceType: "ClusterIP", podDisruptionBudgetConfig: {} },
          karmadaScheduler: { podDisruptionBudgetConfig: { minAvailable: 1, maxUnavailable: "10%" } },
        },
      }),
    );
    expect(errs).toEqual([
      expect.stringContaining("must be either NodePort or LoadBalancer"),
      expect.stringContaining("secret name for external etcd client must be karmada-x-etcd-cert"),
      expect.stringMatching(
        /^spec\.components\.karmadaAPIServer\.podDisruptionBudgetConfig: .*either minAvailable or maxUnavailable must be set$/,
      ),
      expect.stringMatching(
        /^spec\.components\.karmadaScheduler\.podDisruptionBudgetConfig: .*mutually exclusive$/,
      ),
    ]);
    expect(
      validateKarmada(
        karmada("k", { components: { etcd: { local: {} }, karmadaAPIServer: { serviceType: "Ingress" } } }),
      ),
    ).toEqual([
      'spec.components.karmadaAPIServer.serviceType: Invalid value: "Ingress": unsupported service type for Karmada API server',
    ]);
  });

  it("merges extraArgs as upstream's patcher: by name, then every flag sorted after the binary", () => {
    expect(mergeExtraArgs(["/bin/x", "--b=1", "--a=2", "--flag"], { b: "3", "--c": "4" })).toEqual([
      "/bin/x",
      "--a=2",
      "--b=3",
      "--c=4",
    ]);
    expect(mergeExtraArgs(["/bin/x", "--b=1", "--a=2"], {})).toEqual(["/bin/x", "--b=1", "--a=2"]);
  });
});
