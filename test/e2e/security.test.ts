/**
 * Secure by default, as a user meets it on `karmada up`: the real kubectl over TLS with the
 * generated credentials, 401s and 403s in kube-apiserver's words, a ServiceAccount with a
 * narrow Role denied everything else, impersonation, our components' least privilege, CSRs
 * approved by hand, and the seed's Pull walk-through with the real CLIs: `karmadactl token
 * create --print-register-command`, the printed command run against a fresh simulated member,
 * `karmada agent` started with only the member's kubeconfig, a Ready Pull cluster running a
 * propagated workload, certificate rotation, refusals that name what is wrong, unregister.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { HttpClient } from "../../src/client/http.ts";
import { certificateInfo, createCertificateRequest, generateKeyPem } from "../../src/pki/x509.ts";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually, KUBECTL, type KubectlResult } from "../support/kubectl.ts";
import { deployment, manifest } from "../support/kubectl-output.ts";

const BIN = fileURLToPath(new URL("../../bin/karmada", import.meta.url));
const KARMADACTL = fileURLToPath(new URL("../../bin/karmadactl", import.meta.url));

// biome-ignore lint/suspicious/noExplicitAny: kubectl's JSON, read loosely in assertions
type Obj = Record<string, any>;

function run(
  file: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 90_000,
): Promise<KubectlResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, timeout: timeoutMs },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A process left running (member simulator, agent), its output collected. */
interface Running {
  proc: ChildProcess;
  output(): string;
}

function start(args: string[], env: Record<string, string>): Running {
  const proc = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout!.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  proc.stderr!.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  return { proc, output: () => out };
}

describe("secure by default on karmada up", { timeout: 180_000 }, () => {
  let fleet: TestFleet;
  const { kubectl, cp, ok, getJson } = fleetKubectl<Obj>(() => fleet);
  const running: Running[] = [];
  const home = () => ({ HOME: fleet.dir });
  const karmadactl = (args: string[], timeoutMs?: number) =>
    run(process.execPath, [KARMADACTL, ...args], { ...home(), KUBECONFIG: fleet.up.kubeconfig }, timeoutMs);
  /** kubectl with a kubeconfig of its own (a token, no certificate). */
  const kubectlAs = async (name: string, user: Record<string, string>, args: string[]) => {
    const doc = YAML.parse(await readFile(fleet.up.kubeconfig, "utf8"));
    const cluster = doc.clusters.find((c: Obj) => c.name === "karmada-apiserver");
    const path = join(fleet.dir, `${name}.config`);
    await writeFile(
      path,
      YAML.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [cluster],
        users: [{ name, user }],
        contexts: [{ name, context: { cluster: "karmada-apiserver", user: name } }],
        "current-context": name,
      }),
    );
    return run(KUBECTL, [`--kubeconfig=${path}`, `--cache-dir=${join(fleet.dir, "cache")}`, ...args], home());
  };

  beforeAll(async () => {
    fleet = await startTestFleet("security", 3);
  }, 120_000);
  afterAll(async () => {
    for (const r of running)
      if (r.proc.exitCode === null && r.proc.signalCode === null) r.proc.kill("SIGKILL");
    await fleet?.stop();
  });

  it("serves every cluster over HTTPS, and kubectl is the admin by the generated client certificate", async () => {
    const config = YAML.parse(await readFile(fleet.up.kubeconfig, "utf8"));
    for (const c of config.clusters) {
      expect(c.cluster.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(c.cluster["certificate-authority-data"]).toBeTruthy();
    }
    for (const u of config.users) expect(u.user["client-certificate-data"]).toBeTruthy();
    const admin = Buffer.from(
      config.users.find((u: Obj) => u.name === "karmada-apiserver-admin").user["client-certificate-data"],
      "base64",
    ).toString();
    expect(certificateInfo(admin)).toMatchObject({
      commonName: "system:admin",
      organizations: ["system:masters"],
    });
    expect(await ok(cp(["auth", "whoami"]))).toMatch(
      /Username\s+system:admin\n\s*Groups\s+\[system:masters system:authenticated\]/,
    );
    expect(await ok(cp(["get", "clusters"]))).toMatch(/member3\s+\S+\s+Pull\s+True/);
    // Members have CAs of their own.
    const caOf = (name: string) =>
      config.clusters.find((c: Obj) => c.name === name).cluster["certificate-authority-data"];
    expect(caOf("member1")).not.toBe(caOf("karmada-apiserver"));
    expect(caOf("member1")).not.toBe(caOf("member2"));
  });

  it("answers a bad token with 401 and anonymous requests with kube-apiserver's 403", async () => {
    const bad = await kubectlAs("bad", { token: "not-a-token" }, ["get", "ns"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("error: You must be logged in to the server (Unauthorized)");
    // kubectl asks for a password when it has no credentials: anonymous requests go without it.
    const config = YAML.parse(await readFile(fleet.up.kubeconfig, "utf8"));
    const ca = Buffer.from(
      config.clusters.find((c: Obj) => c.name === "karmada-apiserver").cluster["certificate-authority-data"],
      "base64",
    ).toString();
    const anonymous = new HttpClient({ server: fleet.up.url, caData: ca });
    try {
      const clusters = await anonymous.getRaw("/apis/cluster.karmada.io/v1alpha1/clusters");
      expect(clusters.status).toBe(403);
      expect(JSON.parse(clusters.body).message).toBe(
        'clusters.cluster.karmada.io is forbidden: User "system:anonymous" cannot list resource "clusters" in API group "cluster.karmada.io" at the cluster scope',
      );
      expect((await anonymous.getRaw("/version")).status).toBe(200);
      expect((await anonymous.getRaw("/healthz")).status).toBe(200);
    } finally {
      anonymous.close();
    }
  });

  it("gives a ServiceAccount with a narrow Role what it grants and denies everything else", async () => {
    await ok(cp(["create", "namespace", "team"]));
    await ok(cp(["create", "serviceaccount", "reader", "-n", "team"]));
    await ok(cp(["create", "role", "pod-reader", "-n", "team", "--verb=get,list,watch", "--resource=pods"]));
    await ok(
      cp([
        "create",
        "rolebinding",
        "reader",
        "-n",
        "team",
        "--role=pod-reader",
        "--serviceaccount=team:reader",
      ]),
    );
    const token = (await ok(cp(["create", "token", "reader", "-n", "team", "--duration=1h"]))).trim();
    expect(token.split(".")).toHaveLength(3);
    const as = (args: string[]) => kubectlAs("reader", { token }, args);
    const allowed = await as(["get", "pods", "-n", "team"]);
    expect(allowed.stderr).toBe("No resources found in team namespace.\n");
    const whoami = await as(["auth", "whoami"]);
    expect(whoami.stdout).toMatch(/Username\s+system:serviceaccount:team:reader/);
    for (const [args, message] of [
      [
        ["get", "secrets", "-n", "team"],
        'secrets is forbidden: User "system:serviceaccount:team:reader" cannot list resource "secrets" in API group "" in the namespace "team"',
      ],
      [
        ["get", "pods", "-n", "default"],
        'pods is forbidden: User "system:serviceaccount:team:reader" cannot list resource "pods" in API group "" in the namespace "default"',
      ],
      [
        ["get", "clusters"],
        'clusters.cluster.karmada.io is forbidden: User "system:serviceaccount:team:reader" cannot list resource "clusters" in API group "cluster.karmada.io" at the cluster scope',
      ],
      [
        ["delete", "pod", "web", "-n", "team"],
        'pods "web" is forbidden: User "system:serviceaccount:team:reader" cannot delete resource "pods" in API group "" in the namespace "team"',
      ],
      [
        ["create", "deployment", "web", "--image=nginx", "-n", "team"],
        'deployments.apps is forbidden: User "system:serviceaccount:team:reader" cannot create resource "deployments" in API group "apps" in the namespace "team"',
      ],
    ] as const) {
      const r = await as([...args]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(message);
    }
    expect((await as(["auth", "can-i", "list", "pods", "-n", "team"])).stdout).toBe("yes\n");
    expect((await as(["auth", "can-i", "create", "pods", "-n", "team"])).stdout).toBe("no\n");
    const list = await as(["auth", "can-i", "--list", "-n", "team"]);
    expect(list.stdout).toMatch(/pods\s+\[\]\s+\[\]\s+\[get list watch\]/);
    // The admin impersonating it meets the same refusals.
    const impersonated = await cp(["get", "secrets", "-n", "team", "--as=system:serviceaccount:team:reader"]);
    expect(impersonated.stderr).toContain(
      'User "system:serviceaccount:team:reader" cannot list resource "secrets"',
    );
    const asBob = await ok(cp(["auth", "whoami", "--as=bob", "--as-group=devs"]));
    expect(asBob).toMatch(/Username\s+bob\n\s*Groups\s+\[devs system:authenticated\]/);
    // It may not impersonate anyone itself.
    const refused = await as(["get", "pods", "-n", "team", "--as=system:admin"]);
    expect(refused.stderr).toContain(
      'users "system:admin" is forbidden: User "system:serviceaccount:team:reader" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });

  it("runs the controller manager, the scheduler and each agent with least privilege", async () => {
    const can = async (user: string, args: string[]) =>
      (await cp(["auth", "can-i", ...args, `--as=${user}`])).stdout.trim();
    const cm = "system:karmada:karmada-controller-manager";
    const scheduler = "system:karmada:karmada-scheduler";
    const agent = "system:karmada:agent:member3";
    // Member credentials: the controller manager only.
    expect(await can(cm, ["get", "secret/member1", "-n", "karmada-cluster"])).toBe("yes");
    expect(await can(scheduler, ["get", "secret/member1", "-n", "karmada-cluster"])).toBe("no");
    expect(await can(agent, ["get", "secret/member1", "-n", "karmada-cluster"])).toBe("no");
    expect(await can(agent, ["get", "secret/member3", "-n", "karmada-cluster"])).toBe("yes");
    expect(await can(cm, ["create", "clusterrolebindings"])).toBe("no");
    expect(await can(cm, ["create", "pods", "-n", "default"])).toBe("no");
    expect(await can(scheduler, ["patch", "resourcebindings.work.karmada.io", "-n", "default"])).toBe("yes");
    expect(await can(scheduler, ["create", "works.work.karmada.io", "-n", "karmada-es-member1"])).toBe("no");
    // An agent: its own Cluster and Works, nothing of another cluster.
    expect(await can(agent, ["get", "clusters.cluster.karmada.io/member3"])).toBe("yes");
    expect(await can(agent, ["get", "clusters.cluster.karmada.io/member1"])).toBe("no");
    expect(await can(agent, ["update", "clusters.cluster.karmada.io/member1", "--subresource=status"])).toBe(
      "no",
    );
    expect(await can(agent, ["update", "clusters.cluster.karmada.io/member3", "--subresource=status"])).toBe(
      "yes",
    );
    expect(await can(agent, ["list", "works.work.karmada.io", "-n", "karmada-es-member3"])).toBe("yes");
    expect(await can(agent, ["list", "works.work.karmada.io", "-n", "karmada-es-member1"])).toBe("no");
    expect(await can(agent, ["delete", "works.work.karmada.io", "-n", "karmada-es-member2"])).toBe("no");
    // The agent's certificate is its identity.
    const csrs = JSON.parse(await ok(cp(["get", "csr", "-o", "json"])));
    expect(csrs.items.some((c: Obj) => c.spec.username.startsWith("system:bootstrap:"))).toBe(true);
  });

  it("signs a CSR once an administrator approves it with kubectl certificate approve", async () => {
    const key = generateKeyPem();
    const request = await createCertificateRequest(key, { commonName: "jane", organizations: ["devs"] });
    await ok(
      cp(
        ["apply", "-f", "-"],
        manifest({
          apiVersion: "certificates.k8s.io/v1",
          kind: "CertificateSigningRequest",
          metadata: { name: "jane" },
          spec: {
            request: Buffer.from(request).toString("base64"),
            signerName: "kubernetes.io/kube-apiserver-client",
            usages: ["client auth"],
            expirationSeconds: 3600,
          },
        }),
      ),
    );
    expect(await ok(cp(["get", "csr", "jane"]))).toMatch(
      /jane\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+system:admin\s+60m\s+Pending/,
    );
    expect(await ok(cp(["certificate", "approve", "jane"]))).toBe(
      "certificatesigningrequest.certificates.k8s.io/jane approved\n",
    );
    const cert = await eventually(
      async () => {
        const c = await getJson("karmada-apiserver", ["get", "csr", "jane"]);
        return c?.status?.certificate ? Buffer.from(c.status.certificate, "base64").toString() : undefined;
      },
      "jane's certificate",
      200,
      100,
    );
    const jane = await kubectlAs(
      "jane",
      {
        "client-certificate-data": Buffer.from(cert).toString("base64"),
        "client-key-data": Buffer.from(key).toString("base64"),
      },
      ["auth", "whoami"],
    );
    expect(jane.stdout).toMatch(/Username\s+jane\n\s*Groups\s+\[devs system:authenticated\]/);
    // Denying after approval is refused; a new request can be denied.
    const deny = await cp(["certificate", "deny", "jane"]);
    expect(deny.code).toBe(1);
  });

  it("registers a fresh simulated member with the printed register command; its agent makes it a Ready Pull cluster that runs a propagated workload", async () => {
    const memberConfig = join(fleet.dir, "member4.config");
    const member = start(
      ["member-sim", "--name", "member4", "--port", "0", "--kubeconfig-out", memberConfig],
      home(),
    );
    running.push(member);
    await eventually(
      async () => member.output().includes("listening on https://"),
      "member4 to listen",
      300,
      100,
    );

    const printed = await karmadactl(["token", "create", "--print-register-command"]);
    expect(printed.stderr).toBe("");
    const line = printed.stdout.trim();
    expect(line).toMatch(
      /^karmadactl register 127\.0\.0\.1:\d+ --token [a-z0-9]{6}\.[a-z0-9]{16} --discovery-token-ca-cert-hash sha256:[0-9a-f]{64}$/,
    );
    const [, ...args] = line.split(" ");
    const token = args[args.indexOf("--token") + 1]!;
    expect((await karmadactl(["token", "list"])).stdout).toContain(token);

    // The wrong pin, a forged signature and an unknown token are refused, each saying which.
    const endpoint = args[1]!;
    const wrongPin = await karmadactl([
      ...args.map((a) => (a.startsWith("sha256:") ? `sha256:${"0".repeat(64)}` : a)),
      "--kubeconfig",
      memberConfig,
    ]);
    expect(wrongPin.code).toBe(1);
    expect(wrongPin.stderr).toMatch(
      /error: couldn't validate the identity of the API Server: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "sha256:[0-9a-f]{64}" are pinned/,
    );
    const forged = await karmadactl([
      "register",
      endpoint,
      "--token",
      `${token.split(".")[0]}.${"a".repeat(16)}`,
      "--discovery-token-unsafe-skip-ca-verification",
      "--kubeconfig",
      memberConfig,
    ]);
    expect(forged.stderr).toContain(
      "error: couldn't validate the identity of the API Server: failed to verify JWS signature of received cluster info object, can't trust this API Server",
    );
    const unknown = await karmadactl([
      "register",
      endpoint,
      "--token",
      "zzzzzz.zzzzzzzzzzzzzzzz",
      "--discovery-token-unsafe-skip-ca-verification",
      "--discovery-timeout",
      "3s",
      "--kubeconfig",
      memberConfig,
    ]);
    expect(unknown.stderr).toContain(
      'error: couldn\'t validate the identity of the API Server: could not find a JWS signature in the cluster-info ConfigMap for token ID "zzzzzz"',
    );

    const registered = await karmadactl([
      ...args,
      "--kubeconfig",
      memberConfig,
      "--cert-expiration-seconds",
      "600",
    ]);
    expect(registered.stderr).toBe("");
    expect(registered.stdout).toContain("[karmada-agent-start] Waiting to perform the TLS Bootstrap");
    expect(registered.stdout.endsWith("\ncluster(member4) is joined successfully\n")).toBe(true);
    // The agent, started with the member's kubeconfig only: its credentials are in the member.
    const agent = start(
      [
        "agent",
        "--health-probe-bind-address=0",
        "--metrics-bind-address=0",
        "--kubeconfig",
        memberConfig,
        "--cluster-name",
        "member4",
        "--cluster-status-update-frequency",
        "300ms",
        "--controllers",
        "*,certRotation",
        "--cert-rotation-checking-interval",
        "2s",
        "--cert-rotation-remaining-time-threshold",
        "0.9",
        "--log-level",
        "warn",
      ],
      home(),
    );
    running.push(agent);
    await eventually(
      async () => {
        const r = await cp(["get", "cluster", "member4", "-o", "json"]);
        const ready = JSON.parse(r.stdout || "{}").status?.conditions?.some(
          (c: Obj) => c.type === "Ready" && c.status === "True",
        );
        if (!ready)
          throw new Error(`not Ready (${r.stderr.trim()}); the agent said: ${agent.output().slice(-3000)}`);
        return true;
      },
      "member4 Ready",
      300,
      100,
    );
    expect((await getJson("karmada-apiserver", ["get", "cluster", "member4"]))?.spec?.syncMode).toBe("Pull");
    // Registering a name already taken (into another namespace of the member, so its preflight
    // passes) is refused before anything is made: the running agent keeps its RBAC, and the
    // rbac-generator's request is gone. The flag in upstream's `=true` spelling.
    const again = await karmadactl([
      ...args,
      "--kubeconfig",
      memberConfig,
      "-n",
      "elsewhere",
      "--discovery-token-unsafe-skip-ca-verification=true",
    ]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("error: failed to register as cluster with name member4 already exists");
    expect(again.stderr).not.toContain("started deleting");
    await ok(cp(["get", "clusterrole", "system:karmada:member4:agent"]));
    const csrs = (await getJson("karmada-apiserver", ["get", "csr"]))?.items as Obj[];
    expect(csrs.filter((c) => String(c.metadata.name).startsWith("agent-rbac-generator-"))).toEqual([]);
    await ok(
      cp(
        ["apply", "-f", "-"],
        manifest(deployment("pulled"), {
          apiVersion: "policy.karmada.io/v1alpha1",
          kind: "PropagationPolicy",
          metadata: { name: "pulled", namespace: "default" },
          spec: {
            resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "pulled" }],
            placement: { clusterAffinity: { clusterNames: ["member4"] } },
          },
        }),
      ),
    );
    const member4 = (args: string[]) =>
      run(
        KUBECTL,
        [`--kubeconfig=${memberConfig}`, `--cache-dir=${join(fleet.dir, "cache")}`, ...args],
        home(),
      );
    await eventually(
      async () =>
        (await member4(["get", "deployment", "pulled", "-o", "jsonpath={.status.availableReplicas}"]))
          .stdout === "1",
      "the workload running in member4",
      300,
      100,
    );
    await eventually(
      async () =>
        (await getJson("karmada-apiserver", ["get", "deployment", "pulled"]))?.status?.availableReplicas ===
        1,
      "its status back in the control plane",
      300,
      100,
    );

    // certRotation renewed the agent's certificate (a self renewal, auto-approved) and the
    // agent goes on with the new one.
    const secretCert = async () => {
      const secret = JSON.parse(
        (await member4(["get", "secret", "karmada-kubeconfig", "-n", "karmada-system", "-o", "json"])).stdout,
      );
      const kubeconfig = YAML.parse(Buffer.from(secret.data["karmada-kubeconfig"], "base64").toString());
      return certificateInfo(
        Buffer.from(kubeconfig.users[0].user["client-certificate-data"], "base64").toString(),
      );
    };
    const first = await secretCert();
    expect(first.commonName).toBe("system:karmada:agent:member4");
    await eventually(
      async () => (await secretCert()).serialNumber !== first.serialNumber,
      "a rotated certificate",
      300,
      100,
    );
    const selfApproved = (await getJson("karmada-apiserver", ["get", "csr"]))?.items.find(
      (c: Obj) => c.spec.username === "system:karmada:agent:member4",
    );
    expect(selfApproved?.status?.conditions?.[0]).toMatchObject({
      type: "Approved",
      reason: "AutoApproved",
      message: "Auto approving self karmada agent certificate after SubjectAccessReview.",
    });
    await ok(cp(["delete", "deployment", "pulled"]));
    await ok(cp(["delete", "pp", "pulled"]));
    await eventually(
      async () => (await member4(["get", "deployment", "pulled"])).code !== 0,
      "the copy removed",
      300,
      100,
    );

    // Unregistered while its agent runs (it takes the finalizers off the member's Works).
    const unregistered = await karmadactl(["unregister", "member4", "--cluster-kubeconfig", memberConfig]);
    agent.proc.kill("SIGTERM");
    expect(unregistered.code, unregistered.stderr).toBe(0);
    expect(unregistered.stdout).toContain("Successfully delete cluster object (member4) from control plane.");
    expect((await cp(["get", "cluster", "member4"])).code).toBe(1);
    expect((await member4(["get", "deployment", "karmada-agent", "-n", "karmada-system"])).code).toBe(1);
    expect((await karmadactl(["token", "delete", token])).stdout).toBe(
      `bootstrap token "${token.split(".")[0]}" deleted\n`,
    );
  });
});
