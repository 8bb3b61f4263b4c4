/**
 * `karmada operator` on a simulated member as the host cluster, as karmada-operator's e2e
 * suites use it: upstream's CRD and samples applied unchanged with the real kubectl; status
 * (Ready, secretRef, apiServerService), names, Service type and priority class as upstream's;
 * an instance on an external TLS etcd with the user's CA, extraArgs, extra volumes, replicas
 * and a sidecar, whose API server and controller manager are then started from the very
 * commands, Secrets and kubeconfigs the operator wrote; validation errors; deletion.
 */
import type { ChildProcess } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { kubeconfigFor, writeKubeconfig } from "../../src/client/kubeconfig.ts";
import { type ServedMemberCluster, serveMemberCluster } from "../../src/member-sim/cluster.ts";
import { createClusterPki } from "../../src/pki/cluster-pki.ts";
import { createCertificateAuthority, issueCertificate } from "../../src/pki/x509.ts";
import { ETCD_BINARY, type LocalEtcd, startLocalEtcd } from "../../src/storage/etcd/local-etcd.ts";
import { startKarmada } from "../support/ha-fleet.ts";
import { contextKubectl, eventually, type KubectlResult, sharedPath } from "../support/kubectl.ts";
import { FAST } from "../support/member-sim.ts";

const CRD = sharedPath("conformance/karmada/operator/operator.karmada.io_karmadas.yaml");
const SAMPLE = sharedPath("conformance/karmada/operator/karmada.yaml");
const TEMPLATE = sharedPath("conformance/karmada/operator/karmada-sample.yaml");

// biome-ignore lint/suspicious/noExplicitAny: objects as kubectl prints them, read field by field
type Json = Record<string, any>;

const json = <T = Json>(r: KubectlResult): T => {
  if (r.code !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as T;
};

describe.skipIf(!existsSync(CRD))("karmada operator (a simulated member as the host cluster)", () => {
  let dir: string;
  let host: ServedMemberCluster;
  let kubectl: (args: string[], stdin?: string) => Promise<KubectlResult>;
  const procs: ChildProcess[] = [];
  let etcd: LocalEtcd | undefined;

  const get = async (kind: string, ns: string, name: string) =>
    json(await kubectl(["get", kind, "-n", ns, name, "-o", "json"]));
  const readyCondition = async (ns: string, name: string) => {
    const k = await get("karmada", ns, name);
    return (k.status?.conditions ?? []).find((c: { type: string }) => c.type === "Ready");
  };
  const untilReady = (ns: string, name: string) =>
    eventually(
      async () => {
        const c = await readyCondition(ns, name);
        return c?.status === "True" ? c : undefined;
      },
      `${ns}/${name} Ready`,
      300,
      100,
    );
  const secretText = async (ns: string, name: string, key: string): Promise<string> =>
    Buffer.from((await get("secret", ns, name)).data[key], "base64").toString("utf8");

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmada-operator-"));
    host = await serveMemberCluster({ name: "host", port: 0, timing: FAST });
    const kubeconfig = join(dir, "host.config");
    await writeKubeconfig(kubeconfig, kubeconfigFor([{ name: "host", connection: host.connection }]));
    const run = contextKubectl(
      () => kubeconfig,
      () => dir,
    );
    kubectl = (args, stdin) => run("host", args, stdin);
    // Upstream's CRD as the operator's users install it.
    const crd = await kubectl(["create", "-f", CRD]);
    expect(crd.stderr).toBe("");
    await startKarmada(
      [
        "operator",
        `--kubeconfig=${kubeconfig}`,
        "--health-probe-bind-address=0",
        "--metrics-bind-address=0",
        "--log-level=warn",
      ],
      /karmada operator (\S+) started/,
      procs,
    );
  }, 120_000);
  afterAll(async () => {
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    await etcd?.destroy();
    await host?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("installs upstream's sample unchanged: Ready, secretRef, apiServerService, NodePort, names and priority class as upstream", async () => {
    expect((await kubectl(["create", "namespace", "test"])).code).toBe(0);
    const applied = await kubectl(["apply", "-f", SAMPLE]);
    expect(applied.stdout).toBe("karmada.operator.karmada.io/karmada-demo created\n");
    const ready = await untilReady("test", "karmada-demo");
    expect(ready).toMatchObject({ reason: "Completed", message: "karmada init job is completed" });
    const listed = await kubectl(["get", "karmadas", "-n", "test"]);
    expect(listed.stdout).toMatch(/^NAME\s+READY\s+AGE\nkarmada-demo\s+True\s+\S+\n$/);

    const k = await get("karmada", "test", "karmada-demo");
    expect(k.metadata.finalizers).toEqual(["operator.karmada.io/finalizer"]);
    expect(k.metadata.labels).toEqual({ "operator.karmada.io/disable-cascading-deletion": "false" });
    expect(k.status.secretRef).toEqual({ namespace: "test", name: "karmada-demo-admin-config" });
    expect(k.status.apiServerService).toEqual({ name: "karmada-demo-apiserver" });

    const svc = await get("service", "test", "karmada-demo-apiserver");
    expect(svc.spec.type).toBe("NodePort");
    const nodePort = svc.spec.ports[0].nodePort as number;
    const config = await secretText("test", "karmada-demo-admin-config", "karmada.config");
    expect(config).toContain("current-context: karmada-admin@karmada-apiserver");
    expect(config).toMatch(new RegExp(`server: https://172\\.18\\.\\d+\\.\\d+:${nodePort}\\n`));

    const etcdSet = await get("statefulset", "test", "karmada-demo-etcd");
    expect(etcdSet.spec.template.spec.priorityClassName).toBe("system-node-critical");
    expect(etcdSet.spec.template.spec.containers[0].image).toBe("registry.k8s.io/etcd:3.6.8-0");
    expect(etcdSet.spec.volumeClaimTemplates[0].metadata.name).toBe("etcd-data");
    const api = await get("deployment", "test", "karmada-demo-apiserver");
    expect(api.spec.template.spec.priorityClassName).toBe("system-node-critical");
    expect(api.spec.template.spec.containers[0].image).toBe("karmada-ts/karmada:v0.1.0");
    for (const name of ["karmada-demo-controller-manager", "karmada-demo-scheduler"])
      expect((await get("deployment", "test", name)).status.readyReplicas).toBe(1);
    const cert = await get("secret", "test", "karmada-demo-cert");
    expect(Object.keys(cert.data).sort()).toEqual(
      [
        "apiserver.crt",
        "apiserver.key",
        "ca.crt",
        "ca.key",
        "etcd-ca.crt",
        "etcd-ca.key",
        "etcd-client.crt",
        "etcd-client.key",
        "etcd-server.crt",
        "etcd-server.key",
        "karmada.crt",
        "karmada.key",
      ].sort(),
    );
  });

  it("upstream's deployment template, filled as its script fills it: names by upstream's rule", async () => {
    const filled = readFileSync(TEMPLATE, "utf8")
      .replaceAll("{{karmada_instance_name}}", "demo")
      .replaceAll("{{karmada_instance_namespace}}", "karmada-system")
      .replace("{{crd_tarball}}", "{httpSource: {url: 'http://local'}}")
      .replaceAll("{{image_tag}}", "latest");
    expect((await kubectl(["apply", "-f", "-"], filled)).code).toBe(0);
    await untilReady("karmada-system", "demo");
    // "demo" has no "karmada" in it: every name is <name>-karmada-<suffix>.
    const k = await get("karmada", "karmada-system", "demo");
    expect(k.status.secretRef.name).toBe("demo-karmada-admin-config");
    expect(k.status.apiServerService.name).toBe("demo-karmada-apiserver");
    expect((await get("statefulset", "karmada-system", "demo-karmada-etcd")).metadata.name).toBe(
      "demo-karmada-etcd",
    );
  });

  it.skipIf(!existsSync(ETCD_BINARY))(
    "an external TLS etcd, the user's CA, extraArgs, extra volumes, replicas, a sidecar; the API server and controller manager start from what the operator wrote",
    async () => {
      // The external etcd, with client certificates of its own CA.
      const etcdPki = await createClusterPki({ caName: "etcd-ca" });
      const serving = await issueCertificate(etcdPki.ca, {
        commonName: "etcd",
        hosts: ["127.0.0.1", "localhost"],
        usage: "server+client",
        notAfter: new Date(Date.now() + 3_600_000),
      });
      const etcdDir = join(dir, "etcd-pki");
      await mkdir(etcdDir);
      const files: Record<string, string> = {
        "ca.crt": etcdPki.ca.certPem,
        "server.crt": serving.certPem,
        "server.key": serving.keyPem,
        "client.crt": etcdPki.admin.certPem,
        "client.key": etcdPki.admin.keyPem,
      };
      for (const [f, c] of Object.entries(files)) await writeFile(join(etcdDir, f), c, { mode: 0o600 });
      etcd = await startLocalEtcd({
        tls: {
          caFile: join(etcdDir, "ca.crt"),
          certFile: join(etcdDir, "server.crt"),
          keyFile: join(etcdDir, "server.key"),
          clientCertFile: join(etcdDir, "client.crt"),
          clientKeyFile: join(etcdDir, "client.key"),
        },
      });
      const userCa = await createCertificateAuthority({ commonName: "tenant-root-ca" });
      const b64 = (s: string) => Buffer.from(s).toString("base64");
      const manifest = [
        { apiVersion: "v1", kind: "Namespace", metadata: { name: "tenants" } },
        {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "tenant-karmada-etcd-cert", namespace: "tenants" },
          data: {
            "ca.crt": b64(etcdPki.ca.certPem),
            "tls.crt": b64(etcdPki.admin.certPem),
            "tls.key": b64(etcdPki.admin.keyPem),
          },
        },
        {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "tenant-ca", namespace: "tenants" },
          type: "kubernetes.io/tls",
          data: { "tls.crt": b64(userCa.certPem), "tls.key": b64(userCa.keyPem) },
        },
        {
          apiVersion: "operator.karmada.io/v1alpha1",
          kind: "Karmada",
          metadata: { name: "tenant", namespace: "tenants" },
          spec: {
            customCertificate: { apiServerCACert: { name: "tenant-ca", namespace: "tenants" } },
            components: {
              etcd: {
                external: {
                  endpoints: [`https://${etcd.endpoint}`],
                  secretRef: { name: "tenant-karmada-etcd-cert", namespace: "tenants" },
                },
              },
              karmadaAPIServer: {
                replicas: 2,
                serviceType: "ClusterIP",
                extraArgs: { "max-requests-inflight": "800", "etcd-prefix": "/tenant" },
                extraVolumes: [
                  { name: "audit", hostPath: { path: "/var/log/karmada", type: "DirectoryOrCreate" } },
                ],
                extraVolumeMounts: [{ name: "audit", mountPath: "/var/log/karmada" }],
                sidecarContainers: [
                  { name: "foo", image: "busybox:latest", command: ["sh", "-c", "sleep infinity"] },
                ],
              },
              karmadaControllerManager: { replicas: 2 },
            },
          },
        },
      ];
      const applied = await kubectl(
        ["apply", "-f", "-"],
        manifest.map((m) => YAML.stringify(m)).join("---\n"),
      );
      expect(applied.stderr).toBe("");
      await untilReady("tenants", "tenant");

      const api = await get("deployment", "tenants", "tenant-karmada-apiserver");
      expect(api.spec.replicas).toBe(2);
      const pod = api.spec.template.spec;
      expect(pod.containers.map((c: { name: string }) => c.name)).toEqual(["kube-apiserver", "foo"]);
      const command = pod.containers[0].command as string[];
      expect(command[0]).toBe("/bin/karmada-apiserver");
      // Upstream's patcher: flags by name, extraArgs win, sorted after the binary.
      expect(command.slice(1)).toEqual([...command.slice(1)].sort());
      expect(command).toContain("--max-requests-inflight=800");
      expect(command).toContain("--etcd-prefix=/tenant");
      expect(command).toContain(`--etcd-servers=https://${etcd.endpoint}`);
      expect(pod.containers[1].command).toEqual(["sh", "-c", "sleep infinity"]);
      expect(pod.volumes.map((v: { name: string }) => v.name)).toEqual([
        "apiserver-cert",
        "etcd-client-cert",
        "audit",
      ]);
      expect(pod.volumes[1].secret.secretName).toBe("tenant-karmada-etcd-cert");
      expect(pod.containers[0].volumeMounts.map((m: { mountPath: string }) => m.mountPath)).toEqual([
        "/etc/karmada/pki",
        "/etc/karmada/pki/etcd-client",
        "/var/log/karmada",
      ]);
      expect(pod.containers[1].volumeMounts).toBeUndefined();
      expect((await get("deployment", "tenants", "tenant-karmada-controller-manager")).spec.replicas).toBe(2);
      expect((await get("service", "tenants", "tenant-karmada-apiserver")).spec.type).toBe("ClusterIP");
      // No local etcd, and the user's etcd Secret is left as it was.
      expect((await kubectl(["get", "statefulset", "-n", "tenants"])).stderr).toContain("No resources found");

      // The certificates come from the user's CA.
      const ca = await secretText("tenants", "tenant-karmada-cert", "ca.crt");
      expect(ca.trim()).toBe(userCa.certPem.trim());
      const issuer = new X509Certificate(await secretText("tenants", "tenant-karmada-cert", "apiserver.crt"))
        .issuer;
      expect(issuer).toBe("CN=tenant-root-ca");
      const admin = await secretText("tenants", "tenant-karmada-admin-config", "karmada.config");
      expect(admin).toContain("server: https://tenant-karmada-apiserver.tenants.svc.cluster.local:5443");

      // What a pod of the Deployment would see: the Secrets as files, the command as written.
      const pki = join(dir, "tenant-pki");
      await mkdir(join(pki, "etcd-client"), { recursive: true });
      for (const [key, value] of Object.entries((await get("secret", "tenants", "tenant-karmada-cert")).data))
        await writeFile(join(pki, key), Buffer.from(value as string, "base64"), { mode: 0o600 });
      for (const [key, value] of Object.entries(
        (await get("secret", "tenants", "tenant-karmada-etcd-cert")).data,
      ))
        await writeFile(join(pki, "etcd-client", key), Buffer.from(value as string, "base64"), {
          mode: 0o600,
        });
      const args = command
        .slice(1)
        .filter((a) => !a.startsWith("--bind-address=") && !a.startsWith("--secure-port="))
        .map((a) => a.replaceAll("/etc/karmada/pki", pki));
      const url = await startKarmada(
        ["apiserver", ...args, "--bind-address=127.0.0.1", "--secure-port=0", "--log-level=warn"],
        /listening on (https:\/\/\S+)/,
        procs,
      );
      const adminConfig = join(dir, "tenant-admin.config");
      await writeFile(
        adminConfig,
        admin.replace("https://tenant-karmada-apiserver.tenants.svc.cluster.local:5443", url),
        { mode: 0o600 },
      );
      const tenant = contextKubectl(
        () => adminConfig,
        () => dir,
      );
      const whoami = await tenant("karmada-admin@karmada-apiserver", [
        "auth",
        "whoami",
        "-o",
        "jsonpath={.status.userInfo.username}",
      ]);
      expect(whoami.stdout).toBe("system:admin");

      // The controller manager, from its Deployment's command and its own kubeconfig Secret.
      const cm = await get("deployment", "tenants", "tenant-karmada-controller-manager");
      const cmConfig = join(dir, "cm.config");
      await writeFile(
        cmConfig,
        (await secretText("tenants", "tenant-karmada-controller-manager-config", "karmada.config")).replace(
          "https://tenant-karmada-apiserver.tenants.svc.cluster.local:5443",
          url,
        ),
        { mode: 0o600 },
      );
      const cmArgs = (cm.spec.template.spec.containers[0].command as string[])
        .slice(1)
        .map((a) => (a.startsWith("--kubeconfig=") ? `--kubeconfig=${cmConfig}` : a))
        .map((a) => (a.startsWith("--health-probe-bind-address=") ? "--health-probe-bind-address=0" : a))
        .map((a) => (a.startsWith("--metrics-bind-address=") ? "--metrics-bind-address=0" : a));
      const identity = await startKarmada(
        ["controller-manager", ...cmArgs, "--log-level=warn"],
        /controller-manager (\S+) started/,
        procs,
      );
      await eventually(
        async () => {
          const r = await tenant("karmada-admin@karmada-apiserver", [
            "get",
            "lease",
            "-n",
            "karmada-system",
            "karmada-controller-manager",
            "-o",
            "jsonpath={.spec.holderIdentity}",
          ]);
          return r.stdout === identity;
        },
        "the controller manager to lead, as its own user",
        200,
        100,
      );
    },
    120_000,
  );

  it("reports what is wrong as upstream's ValidationError, and PodDisruptionBudgets as asked", async () => {
    const bad = {
      apiVersion: "operator.karmada.io/v1alpha1",
      kind: "Karmada",
      metadata: { name: "karmada-bad", namespace: "test" },
      spec: {
        components: {
          etcd: { external: { endpoints: ["https://10.0.0.1:2379"], secretRef: { name: "some-secret" } } },
          karmadaAPIServer: { podDisruptionBudgetConfig: { minAvailable: 1, maxUnavailable: 1 } },
        },
      },
    };
    expect((await kubectl(["apply", "-f", "-"], JSON.stringify(bad))).code).toBe(0);
    const condition = await eventually(
      async () => {
        const c = await readyCondition("test", "karmada-bad");
        return c?.reason === "ValidationError" ? c : undefined;
      },
      "a ValidationError",
      200,
      100,
    );
    expect(condition.status).toBe("False");
    expect(condition.message).toMatch(/^validation errors: \[/);
    expect(condition.message).toContain("secret name for external etcd client must be karmada-bad-etcd-cert");
    expect(condition.message).toContain("minAvailable and maxUnavailable are mutually exclusive");
    const events = ["get", "events", "-n", "test", "--field-selector", "involvedObject.name=karmada-bad"];
    await eventually(
      async () => /Warning\s+ValidationError\s+karmada\/karmada-bad/.test((await kubectl(events)).stdout),
      "a Warning event ValidationError",
      100,
      100,
    );

    // A budget for the API server of the sample instance: same name, pod labels, owned by the Deployment.
    const patched = await kubectl([
      "patch",
      "karmada",
      "karmada-demo",
      "-n",
      "test",
      "--type=merge",
      "-p",
      '{"spec":{"components":{"karmadaAPIServer":{"podDisruptionBudgetConfig":{"minAvailable":1}}}}}',
    ]);
    expect(patched.code).toBe(0);
    const pdb = await eventually(
      async () => {
        const r = await kubectl(["get", "pdb", "-n", "test", "karmada-demo-apiserver", "-o", "json"]);
        return r.code === 0 ? (JSON.parse(r.stdout) as Json) : undefined;
      },
      "the API server's PodDisruptionBudget",
      200,
      100,
    );
    expect(pdb.spec).toMatchObject({
      minAvailable: 1,
      selector: {
        matchLabels: {
          "app.kubernetes.io/name": "karmada-apiserver",
          "app.kubernetes.io/instance": "karmada-demo",
        },
      },
    });
    expect(pdb.spec.maxUnavailable).toBeUndefined();
    expect(pdb.metadata.ownerReferences).toMatchObject([
      { kind: "Deployment", name: "karmada-demo-apiserver", controller: true, blockOwnerDeletion: true },
    ]);
  });

  it("deleting the Karmada removes what the operator made, then the object", async () => {
    expect((await kubectl(["delete", "karmada", "karmada-demo", "-n", "test", "--wait=false"])).code).toBe(0);
    await eventually(
      async () =>
        (await kubectl(["get", "karmada", "-n", "test", "karmada-demo"])).stderr.includes("NotFound"),
      "karmada-demo to go",
      200,
      100,
    );
    for (const [kind, name] of [
      ["deployment", "karmada-demo-apiserver"],
      ["deployment", "karmada-demo-controller-manager"],
      ["statefulset", "karmada-demo-etcd"],
      ["service", "karmada-demo-apiserver"],
      ["secret", "karmada-demo-cert"],
      ["secret", "karmada-demo-admin-config"],
    ])
      expect((await kubectl(["get", kind!, "-n", "test", name!])).stderr).toContain("NotFound");
  });
});
