/**
 * The real kubectl (v1.32, which sends protobuf bodies for built-in kinds) is the oracle.
 *
 * A capture server on loopback answers just enough discovery for each command and records the
 * request bodies. Each captured protobuf body is decoded with our decoder and compared with what
 * the same kubectl command prints with `--dry-run=client -o json`, i.e. Go's JSON rendering of
 * the very object kubectl encoded.
 */

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeProtobufObject } from "./decode.ts";
import { encodeProtobufObject } from "./encode.ts";
import { hasProtobufMagic, PROTOBUF_MEDIA_TYPE } from "./envelope.ts";

const KUBECTL = "/usr/bin/kubectl";

interface Captured {
  method: string;
  path: string;
  contentType: string;
  body: Buffer;
}

/** [groupVersion, [resource, kind, namespaced, verbs][]] — legacy per-group-version discovery. */
const DISCOVERY: readonly (readonly [string, readonly (readonly [string, string, boolean, string])[]])[] = [
  [
    "v1",
    [
      ["namespaces", "Namespace", false, "create,delete,get,list"],
      ["configmaps", "ConfigMap", true, "create,get,list"],
      ["secrets", "Secret", true, "create,get,list"],
      ["serviceaccounts", "ServiceAccount", true, "create,get,list"],
      ["serviceaccounts/token", "TokenRequest", true, "create"],
      ["services", "Service", true, "create,get,list"],
      ["resourcequotas", "ResourceQuota", true, "create,get,list"],
      ["pods", "Pod", true, "create,delete,get,list"],
      ["pods/eviction", "Eviction", true, "create"],
      ["nodes", "Node", false, "get,list,patch"],
    ],
  ],
  [
    "apps/v1",
    [
      ["deployments", "Deployment", true, "create,get,list"],
      ["deployments/scale", "Scale", true, "get,update"],
    ],
  ],
  ["autoscaling/v1", [["horizontalpodautoscalers", "HorizontalPodAutoscaler", true, "create,get,list"]]],
  [
    "batch/v1",
    [
      ["jobs", "Job", true, "create,get,list"],
      ["cronjobs", "CronJob", true, "create,get,list"],
    ],
  ],
  [
    "rbac.authorization.k8s.io/v1",
    [
      ["roles", "Role", true, "create,get,list"],
      ["clusterroles", "ClusterRole", false, "create,get,list"],
      ["rolebindings", "RoleBinding", true, "create,get,list"],
      ["clusterrolebindings", "ClusterRoleBinding", false, "create,get,list"],
    ],
  ],
  ["scheduling.k8s.io/v1", [["priorityclasses", "PriorityClass", false, "create,get,list"]]],
  ["policy/v1", [["poddisruptionbudgets", "PodDisruptionBudget", true, "create,get,list"]]],
  ["networking.k8s.io/v1", [["ingresses", "Ingress", true, "create,get,list"]]],
  ["authorization.k8s.io/v1", [["selfsubjectaccessreviews", "SelfSubjectAccessReview", false, "create"]]],
  [
    "certificates.k8s.io/v1",
    [
      ["certificatesigningrequests", "CertificateSigningRequest", false, "create,get,list,update"],
      ["certificatesigningrequests/approval", "CertificateSigningRequest", false, "get,update"],
    ],
  ],
];

/** The CSR the server hands to `kubectl certificate approve`; kubectl PUTs it back with a condition. */
const CSR = {
  apiVersion: "certificates.k8s.io/v1",
  kind: "CertificateSigningRequest",
  metadata: { name: "csr1", uid: "3e4c0d3a-0000-4000-8000-000000000001", resourceVersion: "7" },
  spec: {
    request: Buffer.from(
      "-----BEGIN CERTIFICATE REQUEST-----\nMIIBfake\n-----END CERTIFICATE REQUEST-----\n",
    ).toString("base64"),
    signerName: "kubernetes.io/kube-apiserver-client",
    expirationSeconds: 86400,
    usages: ["digital signature", "key encipherment", "client auth"],
    username: "alice",
    groups: ["system:authenticated"],
    extra: { "example.com/team": ["a", "b"] },
  },
  status: {},
};

/** The deployment `kubectl autoscale` targets. */
const DEPLOYMENT = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "demo", uid: "3e4c0d3a-0000-4000-8000-000000000004" },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } },
  },
};

/** The node and pod `kubectl drain` finds; the pod is owned by a ReplicaSet so drain evicts it without --force. */
const NODE = { apiVersion: "v1", kind: "Node", metadata: { name: "node1" }, spec: {} };
const POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name: "p1",
    namespace: "demo",
    uid: "3e4c0d3a-0000-4000-8000-000000000002",
    ownerReferences: [
      {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: "web-1",
        uid: "3e4c0d3a-0000-4000-8000-000000000003",
        controller: true,
      },
    ],
  },
  spec: { nodeName: "node1", containers: [{ name: "c", image: "busybox" }] },
};

/** Subresources whose request kind lives in another group; kubectl drain looks for pods/eviction in policy/v1. */
const SUBRESOURCE_GROUP_VERSION: Record<string, { group: string; version: string }> = {
  "pods/eviction": { group: "policy", version: "v1" },
  "deployments/scale": { group: "autoscaling", version: "v1" },
  "serviceaccounts/token": { group: "authentication.k8s.io", version: "v1" },
};

function discoveryDocument(path: string, port: number): unknown {
  if (path === "/version") {
    return { major: "1", minor: "32", gitVersion: "v1.32.4", platform: "linux/amd64" };
  }
  if (path === "/api") {
    return {
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: `127.0.0.1:${port}` }],
    };
  }
  const groups = DISCOVERY.filter(([gv]) => gv.includes("/"));
  if (path === "/apis") {
    return {
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: groups.map(([gv]) => {
        const [name, version] = gv.split("/");
        const v = { groupVersion: gv, version };
        return { name, versions: [v], preferredVersion: v };
      }),
    };
  }
  const entry = DISCOVERY.find(([gv]) => path === (gv === "v1" ? "/api/v1" : `/apis/${gv}`));
  if (!entry) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: entry[0],
    resources: entry[1].map(([name, kind, namespaced, verbs]) => ({
      name,
      singularName: name.includes("/") ? "" : kind.toLowerCase(),
      namespaced,
      kind,
      verbs: verbs.split(","),
      ...SUBRESOURCE_GROUP_VERSION[name],
    })),
  };
}

/** Objects the commands read before they write, then discovery; everything else is 404. */
function answerRead(path: string, port: number): [number, unknown] {
  const objects: Record<string, unknown> = {
    "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr1": CSR,
    "/apis/apps/v1/namespaces/demo/deployments/web": DEPLOYMENT,
    "/api/v1/nodes/node1": NODE,
    "/api/v1/pods": { apiVersion: "v1", kind: "PodList", metadata: { resourceVersion: "9" }, items: [POD] },
    "/api/v1/namespaces/foo": { apiVersion: "v1", kind: "Namespace", metadata: { name: "foo" } },
  };
  const found = objects[path] ?? discoveryDocument(path, port);
  return found === undefined ? [404, failure(404, "NotFound", `${path} not found`)] : [200, found];
}

function send(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function failure(code: number, reason: string, message: string): unknown {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason, message, code };
}

/** Answers writes with the decoded object, as a real server would answer with the stored one. */
function answerWrite(req: Captured, res: ServerResponse): void {
  if (req.method === "DELETE") {
    send(res, 200, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 200 });
    return;
  }
  let object: Record<string, unknown>;
  try {
    object = hasProtobufMagic(req.body)
      ? decodeProtobufObject(req.body).object
      : (JSON.parse(req.body.toString("utf8")) as Record<string, unknown>);
  } catch (error) {
    send(res, 400, failure(400, "BadRequest", String(error)));
    return;
  }
  if (object.kind === "SelfSubjectAccessReview") object = { ...object, status: { allowed: true } };
  if (object.kind === "TokenRequest") {
    object = { ...object, status: { token: "t0ken", expirationTimestamp: "2030-01-01T00:00:00Z" } };
  }
  send(res, req.method === "POST" ? 201 : 200, object);
}

interface CaptureServer {
  port: number;
  captured: Captured[];
  close(): Promise<void>;
}

async function startCaptureServer(): Promise<CaptureServer> {
  const captured: Captured[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://localhost");
      const request: Captured = {
        method: req.method ?? "GET",
        path: url.pathname,
        contentType: req.headers["content-type"] ?? "",
        body: Buffer.concat(chunks),
      };
      if (request.method === "GET") {
        const [code, body] = answerRead(request.path, port);
        send(res, code, body);
        return;
      }
      captured.push(request);
      if (request.method === "PATCH" && request.path === "/api/v1/nodes/node1") {
        send(res, 200, { ...NODE, spec: { unschedulable: true } });
        return;
      }
      answerWrite(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    captured,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** Go renders zero Time values as `null` (kubectl 1.32 predates `omitzero` on creationTimestamp); we omit them. */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, dropNulls(v)]),
    );
  }
  return value;
}

interface Oracle {
  /** `kubectl create ...` arguments after the connection flags. */
  args: string[];
  /** The request that carries the body, e.g. "POST /api/v1/namespaces". */
  request: string;
}

/** Imperative creates whose bodies kubectl also prints with --dry-run=client -o json. */
const CREATES: Record<string, Oracle> = {
  namespace: { args: ["create", "namespace", "foo"], request: "POST /api/v1/namespaces" },
  configmap: {
    args: ["create", "configmap", "c", "-n", "demo", "--from-literal=k=v", "--from-literal=other=x y"],
    request: "POST /api/v1/namespaces/demo/configmaps",
  },
  "secret generic": {
    args: ["create", "secret", "generic", "s", "-n", "demo", "--from-literal=a=b", "--from-literal=empty="],
    request: "POST /api/v1/namespaces/demo/secrets",
  },
  "secret docker-registry": {
    args: [
      "create",
      "secret",
      "docker-registry",
      "reg",
      "-n",
      "demo",
      "--docker-server=registry.example.com",
      "--docker-username=u",
      "--docker-password=p",
    ],
    request: "POST /api/v1/namespaces/demo/secrets",
  },
  deployment: {
    args: ["create", "deployment", "web", "-n", "demo", "--image=nginx:1.25", "--replicas=3", "--port=80"],
    request: "POST /apis/apps/v1/namespaces/demo/deployments",
  },
  "deployment with zero replicas and two images": {
    args: ["create", "deployment", "idle", "-n", "demo", "--image=busybox", "--image=nginx", "--replicas=0"],
    request: "POST /apis/apps/v1/namespaces/demo/deployments",
  },
  serviceaccount: {
    args: ["create", "serviceaccount", "sa", "-n", "demo"],
    request: "POST /api/v1/namespaces/demo/serviceaccounts",
  },
  role: {
    args: [
      "create",
      "role",
      "r",
      "-n",
      "demo",
      "--verb=get",
      "--verb=list",
      "--resource=pods,deployments.apps",
    ],
    request: "POST /apis/rbac.authorization.k8s.io/v1/namespaces/demo/roles",
  },
  clusterrole: {
    args: [
      "create",
      "clusterrole",
      "cr",
      "--verb=get",
      "--non-resource-url=/healthz",
      "--non-resource-url=/logs/*",
    ],
    request: "POST /apis/rbac.authorization.k8s.io/v1/clusterroles",
  },
  "clusterrole with aggregation rule": {
    args: ["create", "clusterrole", "agg", "--aggregation-rule=rbac.example.com/aggregate-to-view=true"],
    request: "POST /apis/rbac.authorization.k8s.io/v1/clusterroles",
  },
  rolebinding: {
    args: [
      "create",
      "rolebinding",
      "rb",
      "-n",
      "demo",
      "--role=r",
      "--user=alice",
      "--serviceaccount=demo:sa",
    ],
    request: "POST /apis/rbac.authorization.k8s.io/v1/namespaces/demo/rolebindings",
  },
  clusterrolebinding: {
    args: ["create", "clusterrolebinding", "crb", "--clusterrole=cr", "--group=devs", "--user=bob"],
    request: "POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
  },
  job: {
    args: ["create", "job", "j", "-n", "demo", "--image=busybox", "--", "echo", "hi"],
    request: "POST /apis/batch/v1/namespaces/demo/jobs",
  },
  cronjob: {
    args: [
      "create",
      "cronjob",
      "cj",
      "-n",
      "demo",
      "--image=busybox",
      "--schedule=*/5 * * * *",
      "--restart=OnFailure",
      "--",
      "date",
    ],
    request: "POST /apis/batch/v1/namespaces/demo/cronjobs",
  },
  "service clusterip": {
    args: ["create", "service", "clusterip", "my", "-n", "demo", "--tcp=80:8080", "--tcp=443:https"],
    request: "POST /api/v1/namespaces/demo/services",
  },
  "service headless": {
    args: ["create", "service", "clusterip", "headless", "-n", "demo", "--clusterip=None", "--tcp=5432"],
    request: "POST /api/v1/namespaces/demo/services",
  },
  "service nodeport": {
    args: ["create", "service", "nodeport", "np", "-n", "demo", "--tcp=80:8080", "--node-port=30080"],
    request: "POST /api/v1/namespaces/demo/services",
  },
  "service externalname": {
    args: ["create", "service", "externalname", "ext", "-n", "demo", "--external-name=example.com"],
    request: "POST /api/v1/namespaces/demo/services",
  },
  "pdb min-available": {
    args: ["create", "pdb", "p", "-n", "demo", "--selector=app=web", "--min-available=50%"],
    request: "POST /apis/policy/v1/namespaces/demo/poddisruptionbudgets",
  },
  "pdb max-unavailable": {
    args: ["create", "pdb", "p2", "-n", "demo", "--selector=app=web", "--max-unavailable=1"],
    request: "POST /apis/policy/v1/namespaces/demo/poddisruptionbudgets",
  },
  priorityclass: {
    args: [
      "create",
      "priorityclass",
      "high",
      "--value=1000",
      "--description=important",
      "--preemption-policy=Never",
    ],
    request: "POST /apis/scheduling.k8s.io/v1/priorityclasses",
  },
  "priorityclass global default with value 0": {
    args: ["create", "priorityclass", "zero", "--value=0", "--global-default=true"],
    request: "POST /apis/scheduling.k8s.io/v1/priorityclasses",
  },
  ingress: {
    args: [
      "create",
      "ingress",
      "ing",
      "-n",
      "demo",
      "--class=nginx",
      "--rule=foo.com/bar*=svc:8080,tls=foo-tls",
      "--rule=/exact=other:http",
      "--default-backend=fallback:80",
      "--annotation=a.example.com/x=y",
    ],
    request: "POST /apis/networking.k8s.io/v1/namespaces/demo/ingresses",
  },
  autoscale: {
    args: ["autoscale", "deployment", "web", "-n", "demo", "--min=2", "--max=5", "--cpu-percent=70"],
    request: "POST /apis/autoscaling/v1/namespaces/demo/horizontalpodautoscalers",
  },
  quota: {
    args: [
      "create",
      "quota",
      "q",
      "-n",
      "demo",
      "--hard=cpu=1500m,memory=1Gi,pods=10",
      "--scopes=BestEffort",
    ],
    request: "POST /api/v1/namespaces/demo/resourcequotas",
  },
};

describe.skipIf(!existsSync(KUBECTL))("kubectl 1.32 protobuf bodies decode to kubectl's own JSON", () => {
  let server: CaptureServer;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    server = await startCaptureServer();
    dir = await mkdtemp(join(tmpdir(), "kubectl-oracle-"));
    kubeconfig = join(dir, "kubeconfig");
    await writeFile(kubeconfig, JSON.stringify({ apiVersion: "v1", kind: "Config" }));
  });

  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Runs kubectl with its own HOME, kubeconfig and cache, so nothing of the user's is read or written. */
  function kubectl(args: string[]): Promise<string> {
    const connection = [
      `--server=http://127.0.0.1:${server.port}`,
      "--insecure-skip-tls-verify",
      `--kubeconfig=${kubeconfig}`,
      `--cache-dir=${join(dir, "cache")}`,
    ];
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, KUBECONFIG: kubeconfig };
    return new Promise((resolve, reject) => {
      execFile(KUBECTL, [...connection, ...args], { env, timeout: 30_000 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`kubectl ${args.join(" ")} failed: ${error.message}\n${stderr}`));
        else resolve(stdout);
      });
    });
  }

  /** Runs the command and returns the one write it made to `request`. */
  async function capture(
    args: string[],
    request: string,
    contentType = PROTOBUF_MEDIA_TYPE,
  ): Promise<Captured> {
    const before = server.captured.length;
    await kubectl(args);
    const writes = server.captured.slice(before);
    const matching = writes.filter((c) => `${c.method} ${c.path}` === request);
    expect(matching.map((c) => `${c.method} ${c.path}`)).toEqual([request]);
    const only = matching[0]!;
    expect(only.contentType).toBe(contentType);
    expect(hasProtobufMagic(only.body)).toBe(contentType === PROTOBUF_MEDIA_TYPE);
    if (contentType === PROTOBUF_MEDIA_TYPE) {
      // Our encoder, fed our decoding, writes what Go's generated marshalling wrote, byte for byte.
      const reencoded = encodeProtobufObject(decodeProtobufObject(only.body).object);
      expect(Buffer.from(reencoded).toString("hex")).toBe(only.body.toString("hex"));
    }
    return only;
  }

  for (const [name, { args, request }] of Object.entries(CREATES)) {
    it(`kubectl ${args.slice(0, 3).join(" ")}: ${name}`, async () => {
      const captured = await capture(args, request);
      const decoded = decodeProtobufObject(captured.body);
      // Flags after "--" would become the container's arguments.
      const dashes = args.indexOf("--");
      const at = dashes === -1 ? args.length : dashes;
      const dryRun = [...args.slice(0, at), "--dry-run=client", "-o", "json", ...args.slice(at)];
      const printed = JSON.parse(await kubectl(dryRun)) as unknown;
      expect(decoded.object).toEqual(dropNulls(printed));
    });
  }

  it("kubectl create deployment --replicas=0 keeps the pointer field at 0", async () => {
    const captured = await capture(
      ["create", "deployment", "none", "-n", "demo", "--image=busybox", "--replicas=0"],
      "POST /apis/apps/v1/namespaces/demo/deployments",
    );
    const spec = decodeProtobufObject(captured.body).object.spec as Record<string, unknown>;
    expect(spec.replicas).toBe(0);
  });

  it("kubectl auth can-i sends a SelfSubjectAccessReview", async () => {
    const captured = await capture(
      ["auth", "can-i", "get", "pods", "-n", "demo"],
      "POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
    );
    expect(decodeProtobufObject(captured.body).object).toEqual({
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      metadata: {},
      spec: { resourceAttributes: { namespace: "demo", verb: "get", resource: "pods" } },
      status: { allowed: false },
    });
  });

  it("kubectl auth can-i with a subresource and a name", async () => {
    const captured = await capture(
      ["auth", "can-i", "update", "deployments.apps/web", "--subresource=scale", "-n", "demo"],
      "POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
    );
    expect(decodeProtobufObject(captured.body).object).toEqual({
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      metadata: {},
      spec: {
        resourceAttributes: {
          namespace: "demo",
          verb: "update",
          group: "apps",
          resource: "deployments",
          subresource: "scale",
          name: "web",
        },
      },
      status: { allowed: false },
    });
  });

  // kubectl delete goes through the dynamic (JSON) client, not a typed one: its DeleteOptions are JSON.
  it("kubectl delete ns sends JSON DeleteOptions", async () => {
    const captured = await capture(
      ["delete", "namespace", "foo", "--wait=false"],
      "DELETE /api/v1/namespaces/foo",
      "application/json",
    );
    expect(JSON.parse(captured.body.toString("utf8"))).toEqual({ propagationPolicy: "Background" });
  });

  // kubectl drain posts Evictions through the pods expansion of the REST client, which sends JSON;
  // its pod deletes go through the typed clientset and are protobuf (next test).
  it("kubectl drain sends a JSON Eviction", async () => {
    const captured = await capture(
      ["drain", "node1", "--grace-period=30", "--timeout=20s"],
      "POST /api/v1/namespaces/demo/pods/p1/eviction",
      "application/json",
    );
    expect(JSON.parse(captured.body.toString("utf8"))).toMatchObject({
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: "p1", namespace: "demo" },
      deleteOptions: { gracePeriodSeconds: 30 },
    });
  });

  it("kubectl drain --disable-eviction sends protobuf DeleteOptions", async () => {
    const captured = await capture(
      ["drain", "node1", "--disable-eviction", "--grace-period=0", "--timeout=20s"],
      "DELETE /api/v1/namespaces/demo/pods/p1",
    );
    const decoded = decodeProtobufObject(captured.body);
    expect(decoded.object).toEqual({
      apiVersion: "v1",
      kind: "DeleteOptions",
      gracePeriodSeconds: 0,
    });
  });

  it("kubectl create token sends a TokenRequest", async () => {
    const captured = await capture(
      ["create", "token", "sa", "-n", "demo", "--duration=1h", "--audience=https://example.com"],
      "POST /api/v1/namespaces/demo/serviceaccounts/sa/token",
    );
    expect(decodeProtobufObject(captured.body).object).toEqual({
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      metadata: {},
      spec: { audiences: ["https://example.com"], expirationSeconds: 3600 },
      status: { token: "" },
    });
  });

  it("kubectl certificate approve PUTs the CSR back with an Approved condition", async () => {
    const captured = await capture(
      ["certificate", "approve", "csr1"],
      "PUT /apis/certificates.k8s.io/v1/certificatesigningrequests/csr1/approval",
    );
    const object = decodeProtobufObject(captured.body).object;
    const status = object.status as { conditions: Record<string, unknown>[] };
    const condition = status.conditions[0]!;
    expect(condition.lastUpdateTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(object).toEqual({
      ...CSR,
      status: {
        conditions: [
          {
            type: "Approved",
            status: "True",
            reason: "KubectlApprove",
            message: "This CSR was approved by kubectl certificate approve.",
            lastUpdateTime: condition.lastUpdateTime,
          },
        ],
      },
    });
  });
});
