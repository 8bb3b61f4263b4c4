import { describe, expect, it } from "vitest";
import { ago, cells, DAY, HOUR, header, MINUTE, SECOND } from "./table.fixtures.ts";

describe("Event", () => {
  const event = {
    metadata: { name: "web-7d4b9c-x2k.17d8f2a1b3c4", namespace: "default", creationTimestamp: ago(HOUR) },
    involvedObject: {
      kind: "Pod",
      name: "web-7d4b9c-x2k",
      namespace: "default",
      fieldPath: "spec.containers{app}",
    },
    reason: "BackOff",
    message: "Back-off restarting failed container app in pod web-7d4b9c-x2k_default(4a1b)\n",
    source: { component: "kubelet", host: "member1-worker" },
    firstTimestamp: ago(HOUR),
    lastTimestamp: ago(2 * MINUTE),
    count: 14,
    type: "Warning",
  };

  it("columns, with the details only in -o wide", () => {
    expect(header("/Event")).toEqual([
      "Last Seen",
      "Type",
      "Reason",
      "Object",
      "Subobject*",
      "Source*",
      "Message",
      "First Seen*",
      "Count*",
      "Name*",
    ]);
    expect(cells("/Event", event)).toEqual([
      "2m",
      "Warning",
      "BackOff",
      "pod/web-7d4b9c-x2k",
      "spec.containers{app}",
      "kubelet, member1-worker",
      "Back-off restarting failed container app in pod web-7d4b9c-x2k_default(4a1b)",
      "60m",
      14,
      "web-7d4b9c-x2k.17d8f2a1b3c4",
    ]);
  });

  it("new-style events: eventTime, series, reporting controller, singleton count", () => {
    const singleton = {
      metadata: { name: "e1" },
      involvedObject: { kind: "Node" },
      reason: "RegisteredNode",
      eventTime: "2024-06-01T11:59:30.123456Z",
      reportingComponent: "node-controller",
      type: "Normal",
      message: "Node registered",
    };
    // 29.877s ago: ages truncate.
    expect(cells("/Event", singleton)).toEqual([
      "29s",
      "Normal",
      "RegisteredNode",
      "node",
      "",
      "node-controller",
      "Node registered",
      "29s",
      1,
      "e1",
    ]);
    const series = { ...singleton, series: { count: 5, lastObservedTime: "2024-06-01T11:59:55.000000Z" } };
    expect([cells("/Event", series)[0], cells("/Event", series)[8]]).toEqual(["5s", 5]);
  });

  it("events.k8s.io Events print the same", () => {
    const v1 = {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: "web.1", namespace: "default" },
      regarding: { kind: "Deployment", name: "web", namespace: "default" },
      note: "Scaled up replica set web-6d4b9c to 3",
      reason: "ScalingReplicaSet",
      type: "Normal",
      eventTime: null,
      reportingController: "deployment-controller",
      reportingInstance: "",
      deprecatedSource: { component: "deployment-controller" },
      deprecatedFirstTimestamp: ago(5 * MINUTE),
      deprecatedLastTimestamp: ago(20 * SECOND),
      deprecatedCount: 2,
    };
    expect(header("events.k8s.io/Event")).toEqual(header("/Event"));
    expect(cells("events.k8s.io/Event", v1)).toEqual([
      "20s",
      "Normal",
      "ScalingReplicaSet",
      "deployment/web",
      "",
      "deployment-controller",
      "Scaled up replica set web-6d4b9c to 3",
      "5m",
      2,
      "web.1",
    ]);
  });
});

describe("Lease", () => {
  it("shows the holder", () => {
    expect(header("coordination.k8s.io/Lease")).toEqual(["Name", "Holder", "Age"]);
    const lease = {
      metadata: { name: "karmada-scheduler", creationTimestamp: ago(7 * DAY) },
      spec: { holderIdentity: "karmada-scheduler-5c9_1f2e" },
    };
    expect(cells("coordination.k8s.io/Lease", lease)).toEqual([
      "karmada-scheduler",
      "karmada-scheduler-5c9_1f2e",
      "7d",
    ]);
  });
});

describe("Ingress, IngressClass, NetworkPolicy, EndpointSlice", () => {
  it("Ingress with TLS and more hosts than shown", () => {
    expect(header("networking.k8s.io/Ingress")).toEqual([
      "Name",
      "Class",
      "Hosts",
      "Address",
      "Ports",
      "Age",
    ]);
    const ingress = {
      metadata: { name: "shop", creationTimestamp: ago(DAY) },
      spec: {
        ingressClassName: "nginx",
        tls: [{ hosts: ["shop.example.com"], secretName: "shop-tls" }],
        rules: [
          { host: "shop.example.com" },
          { host: "api.example.com" },
          {},
          { host: "img.example.com" },
          { host: "cdn.example.com" },
        ],
      },
      status: { loadBalancer: { ingress: [{ ip: "203.0.113.7" }] } },
    };
    expect(cells("networking.k8s.io/Ingress", ingress)).toEqual([
      "shop",
      "nginx",
      "shop.example.com,api.example.com,img.example.com + 2 more...",
      "203.0.113.7",
      "80, 443",
      "24h",
    ]);
    const bare = {
      metadata: { name: "b", creationTimestamp: ago(DAY) },
      spec: { defaultBackend: { service: { name: "x" } } },
    };
    expect(cells("networking.k8s.io/Ingress", bare)).toEqual(["b", "<none>", "*", "", "80", "24h"]);
  });

  it("IngressClass parameters", () => {
    expect(header("networking.k8s.io/IngressClass")).toEqual(["Name", "Controller", "Parameters", "Age"]);
    const ic = {
      metadata: { name: "nginx", creationTimestamp: ago(DAY) },
      spec: {
        controller: "k8s.io/ingress-nginx",
        parameters: { apiGroup: "k8s.example.com", kind: "IngressParameters", name: "external-lb" },
      },
    };
    expect(cells("networking.k8s.io/IngressClass", ic)).toEqual([
      "nginx",
      "k8s.io/ingress-nginx",
      "IngressParameters.k8s.example.com/external-lb",
      "24h",
    ]);
  });

  it("NetworkPolicy pod selector", () => {
    const np = { metadata: { name: "deny", creationTimestamp: ago(DAY) }, spec: { podSelector: {} } };
    expect(cells("networking.k8s.io/NetworkPolicy", np)).toEqual(["deny", "<none>", "24h"]);
    const sel = {
      metadata: { name: "db", creationTimestamp: ago(DAY) },
      spec: {
        podSelector: {
          matchExpressions: [
            { key: "legacy", operator: "DoesNotExist" },
            { key: "app", operator: "Exists" },
          ],
        },
      },
    };
    expect(cells("networking.k8s.io/NetworkPolicy", sel)[1]).toBe("app,!legacy");
  });

  it("EndpointSlice", () => {
    expect(header("discovery.k8s.io/EndpointSlice")).toEqual([
      "Name",
      "AddressType",
      "Ports",
      "Endpoints",
      "Age",
    ]);
    const slice = {
      metadata: { name: "web-abc12", creationTimestamp: ago(10 * MINUTE) },
      addressType: "IPv4",
      ports: [{ name: "http", port: 8080, protocol: "TCP" }, { name: "metrics" }],
      endpoints: [
        { addresses: ["10.244.1.5"] },
        { addresses: ["10.244.2.7"] },
        { addresses: ["10.244.3.2", "10.244.3.3"] },
      ],
    };
    expect(cells("discovery.k8s.io/EndpointSlice", slice)).toEqual([
      "web-abc12",
      "IPv4",
      "8080,metrics",
      "10.244.1.5,10.244.2.7,10.244.3.2 + 1 more...",
      "10m",
    ]);
    const empty = {
      metadata: { name: "e", creationTimestamp: ago(MINUTE) },
      addressType: "IPv6",
      endpoints: null,
    };
    expect(cells("discovery.k8s.io/EndpointSlice", empty).slice(2, 4)).toEqual(["<unset>", "<unset>"]);
  });
});

describe("RBAC, CSR, CRD, APIService, StorageClass", () => {
  it("Role and ClusterRole use the default table", () => {
    expect(header("rbac.authorization.k8s.io/ClusterRole")).toEqual(["Name", "Created At"]);
    const role = { metadata: { name: "admin", creationTimestamp: "2024-03-04T05:06:07Z" } };
    expect(cells("rbac.authorization.k8s.io/ClusterRole", role)).toEqual(["admin", "2024-03-04T05:06:07Z"]);
    expect(cells("rbac.authorization.k8s.io/Role", role)).toEqual(["admin", "2024-03-04T05:06:07Z"]);
  });

  it("bindings show the role and, wide, the subjects by kind", () => {
    expect(header("rbac.authorization.k8s.io/RoleBinding")).toEqual([
      "Name",
      "Role",
      "Age",
      "Users*",
      "Groups*",
      "ServiceAccounts*",
    ]);
    const binding = {
      metadata: { name: "karmada-admin", creationTimestamp: ago(HOUR) },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
      subjects: [
        { kind: "User", name: "alice" },
        { kind: "User", name: "bob" },
        { kind: "Group", name: "system:masters" },
        { kind: "ServiceAccount", name: "karmada-controller-manager", namespace: "karmada-system" },
      ],
    };
    expect(cells("rbac.authorization.k8s.io/ClusterRoleBinding", binding)).toEqual([
      "karmada-admin",
      "ClusterRole/cluster-admin",
      "60m",
      "alice, bob",
      "system:masters",
      "karmada-system/karmada-controller-manager",
    ]);
  });

  it("CertificateSigningRequest conditions and requested duration", () => {
    expect(header("certificates.k8s.io/CertificateSigningRequest")).toEqual([
      "Name",
      "Age",
      "SignerName",
      "Requestor",
      "RequestedDuration",
      "Condition",
    ]);
    const csr = {
      metadata: { name: "csr-member1", creationTimestamp: ago(20 * SECOND) },
      spec: {
        signerName: "kubernetes.io/kube-apiserver-client-kubelet",
        username: "system:bootstrap:abcdef",
        expirationSeconds: 86400,
      },
      status: { conditions: [{ type: "Approved", status: "True" }], certificate: "LS0t" },
    };
    expect(cells("certificates.k8s.io/CertificateSigningRequest", csr)).toEqual([
      "csr-member1",
      "20s",
      "kubernetes.io/kube-apiserver-client-kubelet",
      "system:bootstrap:abcdef",
      "24h",
      "Approved,Issued",
    ]);
    const pending = { metadata: { name: "p", creationTimestamp: ago(SECOND) }, spec: { username: "u" } };
    expect(cells("certificates.k8s.io/CertificateSigningRequest", pending).slice(2)).toEqual([
      "<none>",
      "u",
      "<none>",
      "Pending",
    ]);
    const denied = { ...pending, status: { conditions: [{ type: "Denied" }, { type: "Failed" }] } };
    expect(cells("certificates.k8s.io/CertificateSigningRequest", denied)[5]).toBe("Denied,Failed");
  });

  it("CustomResourceDefinition uses the default table", () => {
    const crd = {
      metadata: { name: "propagationpolicies.policy.karmada.io", creationTimestamp: "2024-05-01T10:00:00Z" },
    };
    expect(header("apiextensions.k8s.io/CustomResourceDefinition")).toEqual(["Name", "Created At"]);
    expect(cells("apiextensions.k8s.io/CustomResourceDefinition", crd)).toEqual([
      "propagationpolicies.policy.karmada.io",
      "2024-05-01T10:00:00Z",
    ]);
  });

  it("APIService: Local or the service, and availability", () => {
    expect(header("apiregistration.k8s.io/APIService")).toEqual(["Name", "Service", "Available", "Age"]);
    const local = {
      metadata: { name: "v1.apps", creationTimestamp: ago(3 * DAY) },
      status: { conditions: [{ type: "Available", status: "True", reason: "Local" }] },
    };
    expect(cells("apiregistration.k8s.io/APIService", local)).toEqual(["v1.apps", "Local", "True", "3d"]);
    const remote = {
      metadata: { name: "v1alpha1.cluster.karmada.io", creationTimestamp: ago(3 * DAY) },
      spec: { service: { namespace: "karmada-system", name: "karmada-aggregated-apiserver" } },
      status: { conditions: [{ type: "Available", status: "False", reason: "MissingEndpoints" }] },
    };
    expect(cells("apiregistration.k8s.io/APIService", remote).slice(1, 3)).toEqual([
      "karmada-system/karmada-aggregated-apiserver",
      "False (MissingEndpoints)",
    ]);
    expect(cells("apiregistration.k8s.io/APIService", { metadata: { name: "x" } })[2]).toBe("Unknown");
  });

  it("StorageClass marks the default and fills defaults", () => {
    expect(header("storage.k8s.io/StorageClass")).toEqual([
      "Name",
      "Provisioner",
      "ReclaimPolicy",
      "VolumeBindingMode",
      "AllowVolumeExpansion",
      "Age",
    ]);
    const sc = {
      metadata: {
        name: "standard",
        creationTimestamp: ago(40 * DAY),
        annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
      },
      provisioner: "rancher.io/local-path",
      reclaimPolicy: "Delete",
      volumeBindingMode: "WaitForFirstConsumer",
    };
    expect(cells("storage.k8s.io/StorageClass", sc)).toEqual([
      "standard (default)",
      "rancher.io/local-path",
      "Delete",
      "WaitForFirstConsumer",
      false,
      "40d",
    ]);
    const bare = {
      metadata: { name: "fast", creationTimestamp: ago(HOUR) },
      provisioner: "ebs.csi.aws.com",
      allowVolumeExpansion: true,
    };
    expect(cells("storage.k8s.io/StorageClass", bare)).toEqual([
      "fast",
      "ebs.csi.aws.com",
      "Delete",
      "Immediate",
      true,
      "60m",
    ]);
  });
});
