/**
 * The secure API server over real HTTPS: who a request is (certificates, tokens, anonymous),
 * what RBAC lets them do and how a refusal reads, impersonation, the review APIs,
 * TokenRequest, bootstrap tokens, CSRs and escalation prevention.
 */
import { createHash, createPublicKey, verify, X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rfc3339, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { type ClusterConnection, HttpClient } from "../client/http.ts";
import { silentLogger } from "../log.ts";
import type { ApiError } from "../machinery/errors.ts";
import { type ClusterPki, createClusterPki, issueClientCertificate } from "../pki/cluster-pki.ts";
import { verifyBootstrapSignature } from "../pki/jws.ts";
import {
  createCertificateAuthority,
  createCertificateRequest,
  generateKeyPem,
  issueCertificate,
} from "../pki/x509.ts";
import { MemoryStore } from "../storage/memory/store.ts";
import { startHttpServer } from "./http.ts";
import { secureServingFrom } from "./secure-serving.ts";
import { ApiServer } from "./server.ts";

const RBAC = "rbac.authorization.k8s.io";
const ref = (group: string, resource: string, namespaced: boolean, kind: string, version = "v1") => ({
  group,
  version,
  resource,
  namespaced,
  kind,
});
const ROLES = ref(RBAC, "roles", true, "Role");
const ROLEBINDINGS = ref(RBAC, "rolebindings", true, "RoleBinding");
const CLUSTERROLEBINDINGS = ref(RBAC, "clusterrolebindings", false, "ClusterRoleBinding");
const CSRS = ref("certificates.k8s.io", "certificatesigningrequests", false, "CertificateSigningRequest");
const SSAR = ref("authorization.k8s.io", "selfsubjectaccessreviews", false, "SelfSubjectAccessReview");
const SSRR = ref("authorization.k8s.io", "selfsubjectrulesreviews", false, "SelfSubjectRulesReview");
const SSR = ref("authentication.k8s.io", "selfsubjectreviews", false, "SelfSubjectReview");
const SAR = ref("authorization.k8s.io", "subjectaccessreviews", false, "SubjectAccessReview");

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    return err as ApiError;
  }
  throw new Error("expected the call to fail");
}

async function until<T>(f: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("secure API server", () => {
  let api: ApiServer;
  let pki: ClusterPki;
  let url: string;
  let close: () => Promise<void>;
  const clients: HttpClient[] = [];
  const client = (conn: Omit<ClusterConnection, "server" | "caData">): HttpClient => {
    const c = new HttpClient({ server: url, caData: pki.ca.certPem, ...conn });
    clients.push(c);
    return c;
  };
  let admin: HttpClient;

  beforeAll(async () => {
    pki = await createClusterPki({ caName: "test" });
    const serving = secureServingFrom(pki, {
      bootstrapTokens: true,
      tokenFile: new Map([["static-token", { name: "alice", uid: "42", groups: ["devs"] }]]),
    });
    const store = new MemoryStore();
    api = await ApiServer.start({ store, log: silentLogger, compactionIntervalMs: 0, ...serving.api });
    const http = await startHttpServer(api.handler, {
      host: "127.0.0.1",
      port: 0,
      log: silentLogger,
      tls: serving.tls,
      authenticate: api.authenticate!,
    });
    url = http.url;
    close = async () => {
      await http.close();
      await api.close();
      await store.close();
    };
    admin = client({ certData: pki.admin.certPem, keyData: pki.admin.keyPem });
    await admin.create(RESOURCES.namespaces, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "team" },
    });
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await close?.();
  });

  it("serves HTTPS only and knows the admin by its certificate", async () => {
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const review = await admin.create(SSR, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    expect(review.status).toEqual({
      userInfo: {
        username: "system:admin",
        groups: ["system:masters", "system:authenticated"],
        // The certificate's fingerprint, as kube-apiserver records x509 credentials.
        extra: { "authentication.kubernetes.io/credential-id": [x509Id(pki.admin.certPem)] },
      },
    });
  });

  it("lets anonymous requests read /version and /healthz only", async () => {
    const anonymous = client({});
    expect((await anonymous.getRaw("/version")).status).toBe(200);
    expect((await anonymous.getRaw("/healthz")).status).toBe(200);
    const api403 = await anonymous.getRaw("/api");
    expect(api403.status).toBe(403);
    expect(JSON.parse(api403.body)).toMatchObject({
      kind: "Status",
      reason: "Forbidden",
      code: 403,
      message: 'forbidden: User "system:anonymous" cannot get path "/api"',
    });
    const err = await failure(anonymous.list(RESOURCES.namespaces, undefined));
    expect(err.status.message).toBe(
      'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
  });

  it("answers a bad credential with 401 and a Status body", async () => {
    for (const conn of [{ token: "nope" }, { token: "abcdef.0123456789abcdef" }, { token: "a.b.c" }]) {
      const res = await client(conn).getRaw("/version");
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body)).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Unauthorized",
        reason: "Unauthorized",
        code: 401,
      });
    }
    // A certificate from a CA the server does not trust.
    const other = await createCertificateAuthority({ commonName: "other" });
    const stranger = await issueCertificate(other, {
      commonName: "system:admin",
      organizations: ["system:masters"],
      usage: "client",
      notAfter: new Date(Date.now() + 3_600_000),
    });
    expect(
      (await client({ certData: stranger.certPem, keyData: stranger.keyPem }).getRaw("/version")).status,
    ).toBe(401);
  });

  it("reads users and groups from certificates and the token file", async () => {
    const cert = await issueClientCertificate(pki, { commonName: "bob", organizations: ["qa", "ops"] });
    const bob = client({ certData: cert.certPem, keyData: cert.keyPem });
    const who = await bob.create(SSR, { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" });
    expect(who.status).toEqual({
      userInfo: {
        username: "bob",
        groups: ["qa", "ops", "system:authenticated"],
        extra: { "authentication.kubernetes.io/credential-id": [x509Id(cert.certPem)] },
      },
    });
    const alice = client({ token: "static-token" });
    const her = await alice.create(SSR, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    expect(her.status).toEqual({
      userInfo: { username: "alice", uid: "42", groups: ["devs", "system:authenticated"] },
    });
  });

  it("gives a service account with a narrow Role exactly that, and denies the rest in kube-apiserver's words", async () => {
    await admin.create(RESOURCES.serviceaccounts, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "reader", namespace: "team" },
    });
    await admin.create(ROLES, {
      apiVersion: `${RBAC}/v1`,
      kind: "Role",
      metadata: { name: "pod-reader", namespace: "team" },
      rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] }],
    });
    await admin.create(ROLEBINDINGS, {
      apiVersion: `${RBAC}/v1`,
      kind: "RoleBinding",
      metadata: { name: "reader", namespace: "team" },
      roleRef: { apiGroup: RBAC, kind: "Role", name: "pod-reader" },
      subjects: [{ kind: "ServiceAccount", name: "reader", namespace: "team" }],
    });
    const tokenRequest = (await admin
      .patch(RESOURCES.serviceaccounts, "team", "reader", "merge", {})
      .then(() => fetchToken(url, pki, "team", "reader"))) as {
      status: { token: string; expirationTimestamp: string };
      spec: { audiences: string[]; expirationSeconds: number };
    };
    expect(tokenRequest.spec).toMatchObject({
      audiences: ["https://kubernetes.default.svc.cluster.local"],
      expirationSeconds: 3600,
    });
    const reader = client({ token: tokenRequest.status.token });
    await until(
      async () => ((await reader.list(RESOURCES.pods, "team")).items ? true : undefined),
      "the binding",
    );
    const who = await reader.create(SSR, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    expect((who.status as { userInfo: { username: string; groups: string[] } }).userInfo).toMatchObject({
      username: "system:serviceaccount:team:reader",
      groups: ["system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"],
    });
    const denied = [
      [
        reader.list(RESOURCES.pods, "default"),
        'pods is forbidden: User "system:serviceaccount:team:reader" cannot list resource "pods" in API group "" in the namespace "default"',
      ],
      [
        reader.list(RESOURCES.secrets, "team"),
        'secrets is forbidden: User "system:serviceaccount:team:reader" cannot list resource "secrets" in API group "" in the namespace "team"',
      ],
      [
        reader.delete(RESOURCES.pods, "team", "web"),
        'pods "web" is forbidden: User "system:serviceaccount:team:reader" cannot delete resource "pods" in API group "" in the namespace "team"',
      ],
      [
        reader.get(RESOURCES.pods, "team", "web", { subresource: "log" }),
        'pods "web" is forbidden: User "system:serviceaccount:team:reader" cannot get resource "pods/log" in API group "" in the namespace "team"',
      ],
      [
        reader.list(RESOURCES.deployments, "team"),
        'deployments.apps is forbidden: User "system:serviceaccount:team:reader" cannot list resource "deployments" in API group "apps" in the namespace "team"',
      ],
    ] as const;
    for (const [call, message] of denied) {
      const err = await failure(call);
      expect(err.status).toMatchObject({ code: 403, reason: "Forbidden", message });
    }
    // Reviews say the same.
    const can = async (verb: string, resource: string, namespace: string) =>
      (
        (
          await reader.create(SSAR, {
            apiVersion: "authorization.k8s.io/v1",
            kind: "SelfSubjectAccessReview",
            spec: { resourceAttributes: { verb, resource, namespace } },
          })
        ).status as { allowed: boolean }
      ).allowed;
    expect(await can("list", "pods", "team")).toBe(true);
    expect(await can("create", "pods", "team")).toBe(false);
    const rules = await reader.create(SSRR, {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectRulesReview",
      spec: { namespace: "team" },
    });
    expect((rules.status as { resourceRules: unknown[] }).resourceRules).toContainEqual({
      verbs: ["get", "list", "watch"],
      apiGroups: [""],
      resources: ["pods"],
    });
    const sar = await admin.create(SAR, {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: {
        user: "system:serviceaccount:team:reader",
        groups: ["system:serviceaccounts"],
        resourceAttributes: { namespace: "team", verb: "get", resource: "pods" },
      },
    });
    expect(sar.status).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "reader/team" of Role "pod-reader" to ServiceAccount "reader/team"',
    });
  });

  it("impersonates only for those allowed to, and then acts as the impersonated user", async () => {
    const asReader = client({
      certData: pki.admin.certPem,
      keyData: pki.admin.keyPem,
    });
    const res = await rawGet(url, pki, "/api/v1/namespaces/team/secrets", {
      "Impersonate-User": "system:serviceaccount:team:reader",
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).message).toBe(
      'secrets is forbidden: User "system:serviceaccount:team:reader" cannot list resource "secrets" in API group "" in the namespace "team"',
    );
    const cert = await issueClientCertificate(pki, { commonName: "mallory" });
    const mallory = await rawGet(
      url,
      pki,
      "/api/v1/namespaces",
      { "Impersonate-User": "system:admin" },
      cert,
    );
    expect(JSON.parse(mallory.body)).toMatchObject({
      code: 403,
      message:
        'users "system:admin" is forbidden: User "mallory" cannot impersonate resource "users" in API group "" at the cluster scope',
      details: { name: "system:admin", kind: "users" },
    });
    asReader.close();
  });

  it("authenticates bootstrap tokens and issues approved client certificates", async () => {
    await admin.create(RESOURCES.secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "bootstrap-token-abcdef", namespace: "kube-system" },
      type: "bootstrap.kubernetes.io/token",
      stringData: {
        "token-id": "abcdef",
        "token-secret": "0123456789abcdef",
        "usage-bootstrap-authentication": "true",
        "auth-extra-groups": "system:bootstrappers:karmada:default-cluster-token",
      },
    });
    const bootstrap = client({ token: "abcdef.0123456789abcdef" });
    const who = await bootstrap.create(SSR, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    expect((who.status as { userInfo: unknown }).userInfo).toEqual({
      username: "system:bootstrap:abcdef",
      groups: [
        "system:bootstrappers",
        "system:bootstrappers:karmada:default-cluster-token",
        "system:authenticated",
      ],
    });
    const key = generateKeyPem();
    const request = await createCertificateRequest(key, {
      commonName: "system:karmada:agent:member9",
      organizations: ["system:karmada:agents"],
    });
    const csr = await bootstrap.create(CSRS, {
      apiVersion: "certificates.k8s.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { name: "member9-abcde" },
      spec: {
        request: Buffer.from(request).toString("base64"),
        signerName: "kubernetes.io/kube-apiserver-client",
        usages: ["digital signature", "key encipherment", "client auth"],
        username: "someone-else",
        groups: ["system:masters"],
      },
    });
    expect(csr.spec).toMatchObject({
      username: "system:bootstrap:abcdef",
      groups: [
        "system:bootstrappers",
        "system:bootstrappers:karmada:default-cluster-token",
        "system:authenticated",
      ],
    });
    // The bootstrapper may not approve its own request.
    const refused = await failure(
      bootstrap.patch(
        CSRS,
        undefined,
        "member9-abcde",
        "merge",
        { status: { conditions: [{ type: "Approved", status: "True" }] } },
        { subresource: "approval" },
      ),
    );
    expect(refused.status.code).toBe(403);
    await admin.patch(
      CSRS,
      undefined,
      "member9-abcde",
      "merge",
      { status: { conditions: [{ type: "Approved", status: "True", reason: "Test", message: "ok" }] } },
      { subresource: "approval" },
    );
    const issued = await until(async () => {
      const cur = await bootstrap.get(CSRS, undefined, "member9-abcde");
      const cert = (cur.status as { certificate?: string }).certificate;
      return cert ? Buffer.from(cert, "base64").toString("utf8") : undefined;
    }, "the certificate");
    const agent = client({ certData: issued, keyData: key });
    const review = await agent.create(SSR, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    expect((review.status as { userInfo: unknown }).userInfo).toEqual({
      username: "system:karmada:agent:member9",
      groups: ["system:karmada:agents", "system:authenticated"],
      extra: { "authentication.kubernetes.io/credential-id": [x509Id(issued)] },
    });
  });

  it("refuses a system:masters certificate request for the client signer", async () => {
    const key = generateKeyPem();
    const request = await createCertificateRequest(key, {
      commonName: "evil",
      organizations: ["system:masters"],
    });
    const err = await failure(
      admin.create(CSRS, {
        apiVersion: "certificates.k8s.io/v1",
        kind: "CertificateSigningRequest",
        metadata: { name: "evil" },
        spec: {
          request: Buffer.from(request).toString("base64"),
          signerName: "kubernetes.io/kube-apiserver-client",
          usages: ["client auth"],
        },
      }),
    );
    expect(err.status.message).toBe(
      'certificatesigningrequests.certificates.k8s.io "evil" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
    );
  });

  it("prevents granting or binding what one does not hold", async () => {
    await admin.create(ROLES, {
      apiVersion: `${RBAC}/v1`,
      kind: "Role",
      metadata: { name: "binder", namespace: "team" },
      rules: [
        { apiGroups: [RBAC], resources: ["roles", "rolebindings"], verbs: ["create"] },
        { apiGroups: [""], resources: ["configmaps"], verbs: ["get"] },
      ],
    });
    await admin.create(ROLEBINDINGS, {
      apiVersion: `${RBAC}/v1`,
      kind: "RoleBinding",
      metadata: { name: "carol-binder", namespace: "team" },
      roleRef: { apiGroup: RBAC, kind: "Role", name: "binder" },
      subjects: [{ kind: "User", apiGroup: RBAC, name: "carol" }],
    });
    const cert = await issueClientCertificate(pki, { commonName: "carol" });
    const carol = client({ certData: cert.certPem, keyData: cert.keyPem });
    const err = await until(
      async () =>
        failure(
          carol.create(ROLES, {
            apiVersion: `${RBAC}/v1`,
            kind: "Role",
            metadata: { name: "too-much", namespace: "team" },
            rules: [{ apiGroups: [""], resources: ["secrets", "configmaps"], verbs: ["get", "list"] }],
          }),
        ).then((e) => (e.status.code === 403 && e.status.message?.includes("attempting") ? e : undefined)),
      "the escalation check",
    );
    expect(err.status.message).toBe(
      'roles.rbac.authorization.k8s.io "too-much" is forbidden: user "carol" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["list"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
    );
    // What carol holds she may grant.
    await carol.create(ROLES, {
      apiVersion: `${RBAC}/v1`,
      kind: "Role",
      metadata: { name: "cm-getter", namespace: "team" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
    });
    const bind = await failure(
      carol.create(ROLEBINDINGS, {
        apiVersion: `${RBAC}/v1`,
        kind: "RoleBinding",
        metadata: { name: "carol-admin", namespace: "team" },
        roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "admin" },
        subjects: [{ kind: "User", apiGroup: RBAC, name: "carol" }],
      }),
    );
    expect(bind.status.code).toBe(403);
    expect(bind.status.message).toContain(
      'rolebindings.rbac.authorization.k8s.io "carol-admin" is forbidden: user "carol"',
    );
    const crb = await failure(
      carol.create(CLUSTERROLEBINDINGS, {
        apiVersion: `${RBAC}/v1`,
        kind: "ClusterRoleBinding",
        metadata: { name: "carol-root" },
        roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "cluster-admin" },
        subjects: [{ kind: "User", apiGroup: RBAC, name: "carol" }],
      }),
    );
    expect(crb.status.message).toBe(
      'clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "carol" cannot create resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope',
    );
  });

  it("signs cluster-info for each signing token, and drops token and signature once it expires", async () => {
    const kubeconfig = "apiVersion: v1\nkind: Config\nclusters: []\n";
    await admin.create(RESOURCES.configmaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cluster-info", namespace: "kube-public" },
      data: { kubeconfig },
    });
    const token = (id: string, secret: string, extra: Record<string, string>) =>
      admin.create(RESOURCES.secrets, {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: `bootstrap-token-${id}`, namespace: "kube-system" },
        type: "bootstrap.kubernetes.io/token",
        stringData: { "token-id": id, "token-secret": secret, ...extra },
      });
    const expires = rfc3339(Date.now() + 2_000);
    await token("short1", "aaaaaaaaaaaaaaaa", { "usage-bootstrap-signing": "true", expiration: expires });
    await token("nosign", "bbbbbbbbbbbbbbbb", { "usage-bootstrap-authentication": "true" });
    // Expired and not a token at all (no id, no secret): the cleaner removes it all the same.
    await admin.create(RESOURCES.secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "bootstrap-token-broken", namespace: "kube-system" },
      type: "bootstrap.kubernetes.io/token",
      stringData: { expiration: "2020-01-01T00:00:00Z" },
    });
    const signatures = async () => {
      const cm = await admin.get(RESOURCES.configmaps, "kube-public", "cluster-info");
      return Object.keys(cm.data as Record<string, string>).filter((k) => k.startsWith("jws-kubeconfig-"));
    };
    await until(async () => ((await signatures()).length === 1 ? true : undefined), "a signature");
    const cm = await admin.get(RESOURCES.configmaps, "kube-public", "cluster-info");
    const data = cm.data as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual(["jws-kubeconfig-short1", "kubeconfig"]);
    expect(
      verifyBootstrapSignature(kubeconfig, data["jws-kubeconfig-short1"]!, "short1", "aaaaaaaaaaaaaaaa"),
    ).toBe(true);
    // Anyone may read it, as `karmadactl register` does before it has credentials.
    const anonymous = client({});
    expect((await anonymous.getRaw("/api/v1/namespaces/kube-public/configmaps/cluster-info")).status).toBe(
      200,
    );
    await until(async () => ((await signatures()).length === 0 ? true : undefined), "the signature gone");
    const gone = await failure(admin.get(RESOURCES.secrets, "kube-system", "bootstrap-token-short1"));
    expect(gone.status.code).toBe(404);
    await admin.get(RESOURCES.secrets, "kube-system", "bootstrap-token-nosign");
    const broken = await failure(admin.get(RESOURCES.secrets, "kube-system", "bootstrap-token-broken"));
    expect(broken.status.code).toBe(404);
  });

  it("serves issuer discovery to service accounts: the issuer, and the keys their tokens verify with", async () => {
    api.context.externalAddress = new URL(url).host;
    await admin.create(RESOURCES.serviceaccounts, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "discoverer", namespace: "team" },
    });
    const token = ((await fetchToken(url, pki, "team", "discoverer")).status as { token: string }).token;
    const asAccount = { Authorization: `Bearer ${token}` };
    const config = await rawGet(url, pki, "/.well-known/openid-configuration", asAccount, null);
    expect(config.status).toBe(200);
    expect(config.headers["content-type"]).toBe("application/json");
    expect(config.headers["cache-control"]).toBe("public, max-age=3600");
    expect(JSON.parse(config.body)).toEqual({
      issuer: "https://kubernetes.default.svc.cluster.local",
      jwks_uri: `${url}/openid/v1/jwks`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["ES256"],
    });
    const jwks = await rawGet(url, pki, "/openid/v1/jwks/", asAccount, null);
    expect(jwks.headers["content-type"]).toBe("application/jwk-set+json");
    const { keys } = JSON.parse(jwks.body) as { keys: Array<Record<string, string>> };
    expect(keys).toHaveLength(1);
    expect(Object.keys(keys[0]!)).toEqual(["use", "kty", "kid", "crv", "alg", "x", "y"]);
    const [header, payload, signature] = token.split(".") as [string, string, string];
    expect(JSON.parse(Buffer.from(header, "base64url").toString()).kid).toBe(keys[0]!.kid);
    const key = createPublicKey({ key: keys[0]!, format: "jwk" });
    const signed = Buffer.from(`${header}.${payload}`);
    const sig = Buffer.from(signature, "base64url");
    expect(verify("sha256", signed, { key, dsaEncoding: "ieee-p1363" }, sig)).toBe(true);

    const anonymous = await rawGet(url, pki, "/openid/v1/jwks", {}, null);
    expect(anonymous.status).toBe(403);
    expect(JSON.parse(anonymous.body).message).toBe(
      'forbidden: User "system:anonymous" cannot get path "/openid/v1/jwks"',
    );
  });

  it("fills the aggregated admin, edit and view roles", async () => {
    const view = await until(async () => {
      const r = await admin.get(ref(RBAC, "clusterroles", false, "ClusterRole"), undefined, "view");
      return Array.isArray(r.rules) && r.rules.length > 0 ? r : undefined;
    }, "view's rules");
    const rules = view.rules as Array<{ resources?: string[] }>;
    expect(rules.some((r) => r.resources?.includes("pods"))).toBe(true);
    expect(rules.some((r) => r.resources?.includes("propagationpolicies"))).toBe(true);
    expect(rules.some((r) => r.resources?.includes("secrets"))).toBe(false);
  });
});

/** `X509SHA256=<hex of the DER's SHA-256>`: the credential id of a client certificate. */
function x509Id(certPem: string): string {
  return `X509SHA256=${createHash("sha256").update(new X509Certificate(certPem).raw).digest("hex")}`;
}

/** TokenRequest as `kubectl create token` sends it. */
async function fetchToken(
  url: string,
  pki: ClusterPki,
  namespace: string,
  name: string,
): Promise<StoredObject> {
  const res = await rawRequest(
    url,
    pki,
    "POST",
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {},
    },
  );
  expect(res.status).toBe(201);
  return JSON.parse(res.body) as StoredObject;
}

async function rawRequest(
  url: string,
  pki: ClusterPki,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  cert: ClusterPki["admin"] | null = pki.admin,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const https = await import("node:https");
  const u = new URL(path, url);
  return new Promise((resolve, reject) => {
    const req = https.request(
      u,
      {
        method,
        ca: pki.ca.certPem,
        ...(cert ? { cert: cert.certPem, key: cert.keyPem } : {}),
        headers: { "Content-Type": "application/json", ...headers },
      },
      (res) => {
        let text = "";
        res.on("data", (d) => {
          text += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

function rawGet(
  url: string,
  pki: ClusterPki,
  path: string,
  headers: Record<string, string>,
  cert?: ClusterPki["admin"] | null,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return rawRequest(url, pki, "GET", path, undefined, headers, cert);
}
