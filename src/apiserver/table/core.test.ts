import { describe, expect, it } from "vitest";
import { ago, cells, DAY, HOUR, header, MINUTE } from "./table.fixtures.ts";

const meta = (name: string, age: number, extra: object = {}) => ({
  name,
  namespace: "default",
  creationTimestamp: ago(age),
  ...extra,
});

describe("Namespace, ConfigMap, Secret, ServiceAccount", () => {
  it("Namespace: name, phase, age", () => {
    expect(header("/Namespace")).toEqual(["Name", "Status", "Age"]);
    expect(
      cells("/Namespace", { metadata: meta("karmada-system", 12 * DAY), status: { phase: "Active" } }),
    ).toEqual(["karmada-system", "Active", "12d"]);
  });

  it("ConfigMap counts data and binaryData keys", () => {
    expect(header("/ConfigMap")).toEqual(["Name", "Data", "Age"]);
    const cm = {
      metadata: meta("kube-root-ca.crt", 45 * MINUTE),
      data: { "ca.crt": "x", a: "b" },
      binaryData: { c: "AA==" },
    };
    expect(cells("/ConfigMap", cm)).toEqual(["kube-root-ca.crt", 3, "45m"]);
  });

  it("Secret shows its type and how many data keys it has", () => {
    expect(header("/Secret")).toEqual(["Name", "Type", "Data", "Age"]);
    const secret = {
      metadata: meta("member1-kubeconfig", 3 * HOUR + 4 * MINUTE),
      type: "kubernetes.io/tls",
      data: { "tls.crt": "AA==", "tls.key": "AA==" },
    };
    expect(cells("/Secret", secret)).toEqual(["member1-kubeconfig", "kubernetes.io/tls", 2, "3h4m"]);
    expect(cells("/Secret", { metadata: meta("empty", 5000) })).toEqual(["empty", "Opaque", 0, "5s"]);
  });

  it("ServiceAccount counts secrets", () => {
    expect(header("/ServiceAccount")).toEqual(["Name", "Secrets", "Age"]);
    expect(cells("/ServiceAccount", { metadata: meta("default", 2 * DAY) })).toEqual(["default", 0, "2d"]);
  });
});

describe("Service", () => {
  it("has Selector only with -o wide", () => {
    expect(header("/Service")).toEqual([
      "Name",
      "Type",
      "Cluster-IP",
      "External-IP",
      "Port(s)",
      "Age",
      "Selector*",
    ]);
  });

  it("ClusterIP with external IPs and ports", () => {
    const svc = {
      metadata: meta("web", 10 * MINUTE),
      spec: {
        type: "ClusterIP",
        clusterIP: "10.96.12.7",
        clusterIPs: ["10.96.12.7"],
        externalIPs: ["192.0.2.10", "192.0.2.11"],
        ports: [
          { name: "http", port: 80, targetPort: 8080, protocol: "TCP" },
          { name: "dns", port: 53, protocol: "UDP" },
        ],
        selector: { tier: "frontend", app: "web" },
      },
    };
    expect(cells("/Service", svc)).toEqual([
      "web",
      "ClusterIP",
      "10.96.12.7",
      "192.0.2.10,192.0.2.11",
      "80/TCP,53/UDP",
      "10m",
      "app=web,tier=frontend",
    ]);
  });

  it("NodePort, headless and defaulted fields", () => {
    const nodePort = {
      metadata: meta("np", DAY),
      spec: { type: "NodePort", clusterIPs: ["10.96.0.5"], ports: [{ port: 443, nodePort: 30443 }] },
    };
    expect(cells("/Service", nodePort)).toEqual([
      "np",
      "NodePort",
      "10.96.0.5",
      "<none>",
      "443:30443/TCP",
      "24h",
      "<none>",
    ]);
    const headless = { metadata: meta("db", HOUR), spec: { clusterIP: "None", clusterIPs: ["None"] } };
    expect(cells("/Service", headless)).toEqual([
      "db",
      "ClusterIP",
      "None",
      "<none>",
      "<none>",
      "60m",
      "<none>",
    ]);
  });

  it("LoadBalancer: ingress points, then <pending>", () => {
    const lb = {
      metadata: meta("ingress-nginx", 5 * DAY),
      spec: {
        type: "LoadBalancer",
        clusterIPs: ["10.96.100.1"],
        ports: [{ port: 80, nodePort: 31080, protocol: "TCP" }],
      },
      status: {
        loadBalancer: {
          ingress: [{ ip: "203.0.113.9" }, { hostname: "a.example.com" }, { ip: "203.0.113.2" }],
        },
      },
    };
    expect(cells("/Service", lb).slice(3, 5)).toEqual([
      "203.0.113.2,203.0.113.9,a.example.com",
      "80:31080/TCP",
    ]);
    const pending = { ...lb, status: {} };
    expect(cells("/Service", pending)[3]).toBe("<pending>");
    const withExternal = { ...lb, spec: { ...lb.spec, externalIPs: ["198.51.100.1"] } };
    expect(cells("/Service", withExternal)[3]).toBe("203.0.113.2,203.0.113.9,a.example.com,198.51.100.1");
  });

  it("ExternalName", () => {
    const svc = {
      metadata: meta("ext", 30_000),
      spec: { type: "ExternalName", externalName: "db.example.com" },
    };
    expect(cells("/Service", svc)).toEqual([
      "ext",
      "ExternalName",
      "<none>",
      "db.example.com",
      "<none>",
      "30s",
      "<none>",
    ]);
  });
});

describe("Endpoints", () => {
  it("lists the first three ip:port and counts the rest", () => {
    const ep = {
      metadata: meta("web", 10 * MINUTE),
      subsets: [
        {
          addresses: [{ ip: "10.244.1.5" }, { ip: "10.244.2.7" }],
          ports: [
            { name: "http", port: 8080 },
            { name: "metrics", port: 9090 },
          ],
        },
      ],
    };
    expect(cells("/Endpoints", ep)).toEqual([
      "web",
      "10.244.1.5:8080,10.244.2.7:8080,10.244.1.5:9090 + 1 more...",
      "10m",
    ]);
  });

  it("headless subsets without ports, IPv6, and no subsets", () => {
    const ep = {
      metadata: meta("h", MINUTE),
      subsets: [
        { addresses: [{ ip: "fd00::1" }] },
        { addresses: [{ ip: "fd00::2" }], ports: [{ port: 53 }] },
      ],
    };
    expect(cells("/Endpoints", ep)[1]).toBe("fd00::1,[fd00::2]:53");
    expect(cells("/Endpoints", { metadata: meta("none", MINUTE) })[1]).toBe("<none>");
  });
});

describe("Node", () => {
  const node = {
    metadata: meta("member1-control-plane", 40 * DAY, {
      namespace: undefined,
      labels: {
        "node-role.kubernetes.io/control-plane": "",
        "node-role.kubernetes.io/master": "",
        "kubernetes.io/role": "etcd",
        "kubernetes.io/hostname": "member1-control-plane",
      },
    }),
    spec: { unschedulable: true },
    status: {
      conditions: [
        { type: "MemoryPressure", status: "False" },
        { type: "Ready", status: "True" },
      ],
      addresses: [
        { type: "Hostname", address: "member1-control-plane" },
        { type: "InternalIP", address: "172.18.0.3" },
      ],
      nodeInfo: {
        kubeletVersion: "v1.32.2",
        osImage: "Debian GNU/Linux 12 (bookworm)",
        kernelVersion: "6.8.0-45-generic",
        containerRuntimeVersion: "containerd://1.7.24",
      },
    },
  };

  it("shows status, roles from labels, version, and wide details", () => {
    expect(header("/Node")).toEqual([
      "Name",
      "Status",
      "Roles",
      "Age",
      "Version",
      "Internal-IP*",
      "External-IP*",
      "OS-Image*",
      "Kernel-Version*",
      "Container-Runtime*",
    ]);
    expect(cells("/Node", node)).toEqual([
      "member1-control-plane",
      "Ready,SchedulingDisabled",
      "control-plane,etcd,master",
      "40d",
      "v1.32.2",
      "172.18.0.3",
      "<none>",
      "Debian GNU/Linux 12 (bookworm)",
      "6.8.0-45-generic",
      "containerd://1.7.24",
    ]);
  });

  it("NotReady, Unknown, and no roles", () => {
    const notReady = {
      metadata: meta("w1", HOUR),
      status: { conditions: [{ type: "Ready", status: "Unknown" }] },
    };
    expect(cells("/Node", notReady).slice(1, 3)).toEqual(["NotReady", "<none>"]);
    const fresh = { metadata: meta("w2", HOUR) };
    expect(cells("/Node", fresh)).toEqual([
      "w2",
      "Unknown",
      "<none>",
      "60m",
      "",
      "<none>",
      "<none>",
      "<unknown>",
      "<unknown>",
      "<unknown>",
    ]);
  });
});

describe("PersistentVolume and PersistentVolumeClaim", () => {
  it("PV bound to a claim", () => {
    expect(header("/PersistentVolume")).toEqual([
      "Name",
      "Capacity",
      "Access Modes",
      "Reclaim Policy",
      "Status",
      "Claim",
      "StorageClass",
      "VolumeAttributesClass",
      "Reason",
      "Age",
      "VolumeMode*",
    ]);
    const pv = {
      metadata: meta("pvc-3f2a", 3 * DAY),
      spec: {
        capacity: { storage: "10Gi" },
        accessModes: ["ReadWriteMany", "ReadWriteOnce", "ReadWriteOnce"],
        persistentVolumeReclaimPolicy: "Delete",
        claimRef: { namespace: "default", name: "data-web-0" },
        storageClassName: "standard",
        volumeMode: "Filesystem",
      },
      status: { phase: "Bound" },
    };
    expect(cells("/PersistentVolume", pv)).toEqual([
      "pvc-3f2a",
      "10Gi",
      "RWO,RWX",
      "Delete",
      "Bound",
      "default/data-web-0",
      "standard",
      "<unset>",
      "",
      "3d",
      "Filesystem",
    ]);
  });

  it("PVC pending, then bound; Terminating when deleted", () => {
    expect(header("/PersistentVolumeClaim")).toEqual([
      "Name",
      "Status",
      "Volume",
      "Capacity",
      "Access Modes",
      "StorageClass",
      "VolumeAttributesClass",
      "Age",
      "VolumeMode*",
    ]);
    const pending = {
      metadata: meta("data-web-0", 20 * 1000, {
        annotations: { "volume.beta.kubernetes.io/storage-class": "fast" },
      }),
      spec: {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "1Gi" } },
        storageClassName: "standard",
      },
      status: { phase: "Pending" },
    };
    expect(cells("/PersistentVolumeClaim", pending)).toEqual([
      "data-web-0",
      "Pending",
      "",
      "",
      "",
      "fast",
      "<unset>",
      "20s",
      "<unset>",
    ]);
    const bound = {
      metadata: meta("data-web-1", 2 * HOUR, { deletionTimestamp: ago(MINUTE) }),
      spec: {
        volumeName: "pvc-9",
        storageClassName: "standard",
        volumeMode: "Block",
        volumeAttributesClassName: "gold",
      },
      status: { phase: "Bound", accessModes: ["ReadWriteOncePod"], capacity: { storage: "1Gi" } },
    };
    expect(cells("/PersistentVolumeClaim", bound)).toEqual([
      "data-web-1",
      "Terminating",
      "pvc-9",
      "1Gi",
      "RWOP",
      "standard",
      "gold",
      "120m",
      "Block",
    ]);
  });
});

describe("ReplicationController, PodTemplate, ResourceQuota, LimitRange", () => {
  it("ReplicationController", () => {
    expect(header("/ReplicationController")).toEqual([
      "Name",
      "Desired",
      "Current",
      "Ready",
      "Age",
      "Containers*",
      "Images*",
      "Selector*",
    ]);
    const rc = {
      metadata: meta("legacy", 90 * DAY),
      spec: {
        replicas: 2,
        selector: { app: "legacy" },
        template: { spec: { containers: [{ name: "app", image: "busybox:1.36" }] } },
      },
      status: { replicas: 2, readyReplicas: 1 },
    };
    expect(cells("/ReplicationController", rc)).toEqual([
      "legacy",
      2,
      2,
      1,
      "90d",
      "app",
      "busybox:1.36",
      "app=legacy",
    ]);
  });

  it("PodTemplate", () => {
    const template = {
      metadata: meta("tpl", DAY),
      template: {
        metadata: { labels: { app: "x" } },
        spec: {
          containers: [
            { name: "a", image: "nginx" },
            { name: "b", image: "envoy" },
          ],
        },
      },
    };
    expect(cells("/PodTemplate", template)).toEqual(["tpl", "a,b", "nginx,envoy", "app=x"]);
  });

  it("ResourceQuota puts limits.* in Limit and the rest in Request, sorted", () => {
    expect(header("/ResourceQuota")).toEqual(["Name", "Age", "Request", "Limit"]);
    const quota = {
      metadata: meta("compute", 6 * DAY),
      status: {
        hard: {
          "limits.cpu": "4",
          pods: "10",
          "requests.cpu": "2",
          "limits.memory": "8Gi",
          "requests.memory": "4Gi",
        },
        used: { "limits.cpu": "500m", pods: "3", "requests.cpu": "250m", "requests.memory": "512Mi" },
      },
    };
    expect(cells("/ResourceQuota", quota)).toEqual([
      "compute",
      "6d",
      "pods: 3/10, requests.cpu: 250m/2, requests.memory: 512Mi/4Gi",
      "limits.cpu: 500m/4, limits.memory: 0/8Gi",
    ]);
  });

  it("LimitRange uses the default table", () => {
    expect(header("/LimitRange")).toEqual(["Name", "Created At"]);
    const lr = {
      metadata: meta("limits", DAY, { creationTimestamp: "2024-05-31T12:00:00Z" }),
      spec: { limits: [] },
    };
    expect(cells("/LimitRange", lr)).toEqual(["limits", "2024-05-31T12:00:00Z"]);
  });
});
