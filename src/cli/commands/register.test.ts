import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { HttpClient } from "../../client/http.ts";
import { createCertificateAuthority, issueCertificate } from "../../pki/x509.ts";
import { CommandError } from "../io.ts";
import { agentDeployment, agentKubeconfig, parsePins, type RegisterCommandOptions } from "./register.ts";

const HEX = "9cfa542ff48f43793d1816b1dd0a78ad574e349d8f6e005e6e32e8ab528e4244";

describe("parsePins", () => {
  it("accepts sha256:<64 hex>, lower-cased, in order", () => {
    expect(parsePins([`sha256:${HEX}`, `SHA256:${HEX.toUpperCase()}`, `Sha256:${"0".repeat(64)}`])).toEqual([
      `sha256:${HEX}`,
      `sha256:${HEX}`,
      `sha256:${"0".repeat(64)}`,
    ]);
    expect(parsePins([])).toEqual([]);
  });

  const prefix = "invalid discovery token CA certificate hash: ";
  const cases: Array<{ hash: string; message: string }> = [
    {
      hash: HEX,
      message: `${prefix}invalid hash, expected "format:hex-value". Known format(s) are: sha256`,
    },
    {
      hash: `sha256:${HEX}:extra`,
      message: `${prefix}invalid hash, expected "format:hex-value". Known format(s) are: sha256`,
    },
    {
      hash: `md5:${HEX}`,
      message: `${prefix}unknown hash format "md5". Known format(s) are: sha256`,
    },
    {
      hash: `SHA1:${HEX}`,
      message: `${prefix}unknown hash format "SHA1". Known format(s) are: sha256`,
    },
    {
      hash: `sha256:${HEX.slice(0, 62)}`,
      message: `${prefix}invalid hash "sha256:${HEX.slice(0, 62)}", expected a 32 byte SHA-256 hash, found 31 bytes`,
    },
    {
      hash: `sha256:${HEX}00`,
      message: `${prefix}invalid hash "sha256:${HEX}00", expected a 32 byte SHA-256 hash, found 33 bytes`,
    },
    {
      hash: "sha256:",
      message: `${prefix}invalid hash "sha256:", expected a 32 byte SHA-256 hash, found 0 bytes`,
    },
  ];
  it.each(cases)("refuses $hash", ({ hash, message }) => {
    expect(() => parsePins([`sha256:${HEX}`, hash])).toThrow(new CommandError(message));
  });

  it("refuses a hash that is not hex", () => {
    const bad = `sha256:${"g".repeat(64)}`;
    expect(() => parsePins([bad])).toThrow(CommandError);
    // kubeadm appends Go's decoding error after this text (see the report); only the common part is checked.
    expect(() => parsePins([bad])).toThrow(
      `${prefix}invalid hash "${bad}", could not decode SHA-256 from hex`,
    );
  });
});

function options(more: Partial<RegisterCommandOptions> = {}): RegisterCommandOptions {
  return {
    endpoint: "172.18.0.2:5443",
    token: "abcdef.0123456789abcdef",
    caCertHashes: [`sha256:${HEX}`],
    unsafeSkipCaVerification: false,
    clusterName: "member1",
    // Never used by agentDeployment: a client that has not connected to anything.
    member: {
      client: new HttpClient({ server: "https://member1.example:6443" }),
      server: "https://172.18.0.3:6443",
    },
    namespace: "karmada-system",
    clusterNamespace: "karmada-cluster",
    enableCertRotation: false,
    discoveryTimeoutMs: 300_000,
    agentImage: "docker.io/karmada/karmada-agent:v1.14.0",
    agentReplicas: 1,
    certExpirationSeconds: 31_536_000,
    dryRun: false,
    ...more,
  };
}

describe("agentDeployment", () => {
  it("runs the agent with upstream's command line, empty values included", () => {
    const d = agentDeployment(options());
    const spec = d.spec as {
      template: { spec: { containers: Array<{ command: string[] }> } };
    };
    expect(spec.template.spec.containers[0]!.command).toEqual([
      "/bin/karmada-agent",
      "--karmada-kubeconfig=/etc/kubeconfig/karmada-kubeconfig",
      "--cluster-name=member1",
      "--cluster-api-endpoint=https://172.18.0.3:6443",
      "--cluster-provider=",
      "--cluster-region=",
      "--cluster-zones=",
      "--controllers=*",
      "--proxy-server-address=",
      "--leader-elect-resource-namespace=karmada-system",
      "--cluster-namespace=karmada-cluster",
      "--cluster-status-update-frequency=10s",
      "--metrics-bind-address=:8080",
      "--health-probe-bind-address=0.0.0.0:10357",
      "--v=2",
    ]);
  });

  it("passes provider, region, zones, proxy, namespaces and cert rotation through", () => {
    const d = agentDeployment(
      options({
        clusterName: "edge-7",
        clusterProvider: "aws",
        clusterRegion: "eu-west-1",
        clusterZones: ["eu-west-1a", "eu-west-1b"],
        proxyServerAddress: "http://proxy:3128",
        namespace: "agents",
        clusterNamespace: "secrets-ns",
        enableCertRotation: true,
      }),
    );
    const command = (d.spec as { template: { spec: { containers: Array<{ command: string[] }> } } }).template
      .spec.containers[0]!.command;
    expect(command.slice(2, 11)).toEqual([
      "--cluster-name=edge-7",
      "--cluster-api-endpoint=https://172.18.0.3:6443",
      "--cluster-provider=aws",
      "--cluster-region=eu-west-1",
      "--cluster-zones=eu-west-1a,eu-west-1b",
      "--controllers=*,certRotation",
      "--proxy-server-address=http://proxy:3128",
      "--leader-elect-resource-namespace=agents",
      "--cluster-namespace=secrets-ns",
    ]);
  });

  it("is the Deployment upstream creates", () => {
    const d = agentDeployment(options({ agentReplicas: 2 }));
    const labels = { app: "karmada-agent" };
    expect(d).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "karmada-agent", namespace: "karmada-system", labels },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels },
        template: {
          metadata: { name: "karmada-agent", namespace: "karmada-system", labels },
          spec: {
            serviceAccountName: "karmada-agent-sa",
            tolerations: [{ key: "node-role.kubernetes.io/master", operator: "Exists" }],
            containers: [
              {
                name: "karmada-agent",
                image: "docker.io/karmada/karmada-agent:v1.14.0",
                command: expect.any(Array),
                ports: [{ name: "metrics", containerPort: 8080, protocol: "TCP" }],
                volumeMounts: [{ name: "kubeconfig", mountPath: "/etc/kubeconfig" }],
              },
            ],
            volumes: [{ name: "kubeconfig", secret: { secretName: "karmada-kubeconfig" } }],
          },
        },
      },
    });
  });
});

describe("agentKubeconfig", () => {
  it("names the context <cluster>@karmada-apiserver, for user <cluster> on cluster karmada-apiserver", async () => {
    const ca = await createCertificateAuthority({ commonName: "karmada" });
    const cert = await issueCertificate(ca, {
      commonName: "system:karmada:agent:member1",
      organizations: ["system:karmada:agents"],
      usage: "client",
      notAfter: new Date(Date.now() + 86_400_000),
    });
    const doc = YAML.parse(agentKubeconfig("172.18.0.2:5443", ca.certPem, "member1", cert)) as {
      clusters: Array<{ name: string; cluster: Record<string, string> }>;
      users: Array<{ name: string; user: Record<string, string> }>;
      contexts: Array<{ name: string; context: Record<string, string> }>;
      "current-context": string;
      kind: string;
      apiVersion: string;
    };
    expect(doc.kind).toBe("Config");
    expect(doc.apiVersion).toBe("v1");
    expect(doc["current-context"]).toBe("member1@karmada-apiserver");
    expect(doc.contexts).toEqual([
      { name: "member1@karmada-apiserver", context: { cluster: "karmada-apiserver", user: "member1" } },
    ]);
    expect(doc.clusters).toHaveLength(1);
    expect(doc.clusters[0]!.name).toBe("karmada-apiserver");
    expect(doc.clusters[0]!.cluster.server).toBe("https://172.18.0.2:5443");
    const decode = (b64: string | undefined) => Buffer.from(b64 ?? "", "base64").toString("utf8");
    expect(decode(doc.clusters[0]!.cluster["certificate-authority-data"])).toBe(ca.certPem);
    expect(doc.users).toHaveLength(1);
    expect(doc.users[0]!.name).toBe("member1");
    expect(decode(doc.users[0]!.user["client-certificate-data"])).toBe(cert.certPem);
    expect(decode(doc.users[0]!.user["client-key-data"])).toBe(cert.keyPem);
  });
});

describe("parsePins: Go's length check in whole bytes, then its hex errors", () => {
  const prefix = "invalid discovery token CA certificate hash: ";
  it.each([
    {
      hash: `sha256:${HEX.slice(0, 63)}`,
      message: `invalid hash "sha256:${HEX.slice(0, 63)}", expected a 32 byte SHA-256 hash, found 31 bytes`,
    },
    {
      hash: `sha256:${HEX}0`,
      message: `invalid hash "sha256:${HEX}0", could not decode SHA-256 from hex, err: encoding/hex: odd length hex string`,
    },
    {
      hash: `sha256:g${HEX.slice(1)}`,
      message: `invalid hash "sha256:g${HEX.slice(1)}", could not decode SHA-256 from hex, err: encoding/hex: invalid byte: U+0067 'g'`,
    },
  ])("$hash", ({ hash, message }) => {
    expect(() => parsePins([hash])).toThrow(new CommandError(`${prefix}${message}`));
  });
});
