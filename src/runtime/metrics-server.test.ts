/**
 * A component's /metrics server against a real API server: scrapes are authenticated by
 * TokenReview (bearer tokens) or the client CA (certificates), and authorized by
 * SubjectAccessReview for `get` on /metrics; the serving certificate is the one given.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsGet } from "../../test/support/https.ts";
import { type RunningControlPlane, startLocalControlPlane } from "../bin/control-plane.ts";
import { RESOURCES } from "../client/client.ts";
import { HttpClient } from "../client/http.ts";
import { silentLogger } from "../log.ts";
import { counter, createMetricsRegistry } from "../metrics/registry.ts";
import { issueClientCertificate } from "../pki/cluster-pki.ts";
import { createCertificateAuthority, issueCertificate } from "../pki/x509.ts";
import { delegatedAuth } from "./delegated-auth.ts";
import type { HealthServer } from "./health.ts";
import { startMetricsServer } from "./metrics-server.ts";

type Pki = Awaited<ReturnType<typeof startLocalControlPlane>>["pki"];

describe("a component's /metrics, authenticated and authorized by the API server", () => {
  let cp: RunningControlPlane & { pki: Pki };
  let delegate: HttpClient;
  let server: HealthServer;
  let servingCa: string;

  const get = (opts: { token?: string; cert?: { certPem: string; keyPem: string } }) =>
    httpsGet(`${server.url}/metrics`, { ...opts, ca: servingCa });

  beforeAll(async () => {
    cp = await startLocalControlPlane();
    // The component's own identity: allowed to create token and access reviews, nothing more.
    const cm = await issueClientCertificate(cp.pki, {
      commonName: "system:karmada:karmada-controller-manager",
    });
    delegate = new HttpClient({ ...cp.connection, certData: cm.certPem, keyData: cm.keyPem });
    const registry = createMetricsRegistry({ processMetrics: false });
    counter(registry, { name: "things_total", help: "things" }).inc(3);
    const ca = await createCertificateAuthority({ commonName: "metrics-ca" });
    servingCa = ca.certPem;
    const tls = await issueCertificate(ca, {
      commonName: "metrics",
      hosts: ["127.0.0.1"],
      usage: "server",
      notAfter: new Date(Date.now() + 3600_000),
    });
    server = await startMetricsServer({
      host: "127.0.0.1",
      port: 0,
      registry,
      auth: delegatedAuth(delegate),
      tls,
      clientCaPem: cp.pki.ca.certPem,
      log: silentLogger,
    });
  });
  afterAll(async () => {
    await server?.close();
    delegate?.close();
    await cp?.stop();
  });

  const serviceAccountToken = async (name: string, monitoring: boolean): Promise<string> => {
    const admin = new HttpClient(cp.connection);
    try {
      await admin.create(RESOURCES.serviceaccounts, {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name, namespace: "default" },
      });
      if (monitoring)
        await admin.create(RESOURCES.clusterrolebindings, {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRoleBinding",
          metadata: { name },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:monitoring" },
          subjects: [{ kind: "ServiceAccount", name, namespace: "default" }],
        });
      const r = await admin.raw("POST", `/api/v1/namespaces/default/serviceaccounts/${name}/token`, {
        body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} },
      });
      return (JSON.parse(r.body) as { status: { token: string } }).status.token;
    } finally {
      admin.close();
    }
  };

  it("serves a token allowed get on /metrics, refuses others with a Status", async () => {
    const allowed = await get({ token: await serviceAccountToken("prometheus", true) });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toContain("things_total 3");
    const none = await get({});
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body)).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
    expect((await get({ token: "forged" })).status).toBe(401);
    const forbidden = await get({ token: await serviceAccountToken("nosy", false) });
    expect(forbidden.status).toBe(403);
    expect(JSON.parse(forbidden.body)).toMatchObject({
      reason: "Forbidden",
      message: 'forbidden: User "system:serviceaccount:default:nosy" cannot get path "/metrics"',
    });
  });

  it("takes client certificates of --client-ca-file, authorized the same way", async () => {
    const monitor = await issueClientCertificate(cp.pki, {
      commonName: "prom",
      organizations: ["system:monitoring"],
    });
    expect((await get({ cert: monitor })).status).toBe(200);
    const other = await issueClientCertificate(cp.pki, { commonName: "someone" });
    expect((await get({ cert: other })).status).toBe(403);
  });
});
