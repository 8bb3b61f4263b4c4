import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../api/meta.ts";
import { jwtSigner, jwtVerifier } from "../../pki/jws.ts";
import { generateKeyPem, publicKeyPemOf } from "../../pki/x509.ts";
import type { UserInfo } from "../context.ts";
import {
  ANONYMOUS_USER,
  type AuthRequest,
  bearerToken,
  createAuthenticator,
  type TokenAuthenticator,
  type TokenResult,
} from "./authenticator.ts";
import { bootstrapTokenAuthenticator } from "./bootstrap-token.ts";
import {
  issueBoundToken,
  issueLegacyToken,
  parseServiceAccountUsername,
  type ServiceAccountLookup,
  serviceAccountAuthenticator,
} from "./service-account.ts";
import { csvFields, parseTokenFile, tokenFileAuthenticator } from "./token-file.ts";

/** The objects a token depends on, in memory. */
class MemoryLookup implements ServiceAccountLookup {
  readonly objects = new Map<string, StoredObject>();
  put(resource: string, obj: StoredObject): void {
    this.objects.set(`${resource}/${obj.metadata.namespace}/${obj.metadata.name}`, obj);
  }
  remove(resource: string, namespace: string, name: string): void {
    this.objects.delete(`${resource}/${namespace}/${name}`);
  }
  async get(resource: string, namespace: string, name: string): Promise<StoredObject | undefined> {
    return this.objects.get(`${resource}/${namespace}/${name}`);
  }
}

/** A token authenticator with a fixed answer that counts how often it was asked. */
function fixed(name: string, answer: (token: string) => TokenResult): TokenAuthenticator & { calls: number } {
  const a = {
    name,
    calls: 0,
    authenticate(token: string) {
      a.calls++;
      return answer(token);
    },
  };
  return a;
}

const bearer = (token: string): AuthRequest => ({ headers: { authorization: `Bearer ${token}` } });
const isUser = (r: TokenResult): r is { user: UserInfo; expiresAt?: number } =>
  r !== undefined && "user" in r;
const isError = (r: TokenResult): r is { error: string } => r !== undefined && "error" in r;

describe("csvFields", () => {
  const cases: Array<{ line: string; want: string[] }> = [
    { line: "a,b,c", want: ["a", "b", "c"] },
    { line: 'a,"b,c",d', want: ["a", "b,c", "d"] },
    { line: '"x""y"', want: ['x"y'] },
    { line: '"",b', want: ["", "b"] },
    { line: "a,", want: ["a", ""] },
    { line: "a,,c", want: ["a", "", "c"] },
    { line: "", want: [""] },
    { line: " a,\tb", want: ["a", "b"] },
    { line: 'tok,user,uid,"g1,g2,g3"', want: ["tok", "user", "uid", "g1,g2,g3"] },
  ];
  it.each(cases)("$line", ({ line, want }) => {
    expect(csvFields(line)).toEqual(want);
  });

  it.each([
    { line: '"open', error: "unterminated quoted field" },
    { line: 'a,"b,c', error: "unterminated quoted field" },
    { line: '"a"b,c', error: "extraneous text after a quoted field" },
  ])("refuses $line", ({ line, error }) => {
    expect(() => csvFields(line)).toThrow(error);
  });
});

describe("parseTokenFile", () => {
  it("reads users, uids and quoted group lists, skipping blank lines", () => {
    const tokens = parseTokenFile(
      [
        "tok1,alice,uid-1",
        "",
        'tok2,bob,,"devs,ops"',
        '  tok3,"carol ""c""",uid-3,single',
        "   ",
        "tok4,dave,uid-4,",
      ].join("\n"),
    );
    expect([...tokens.entries()]).toEqual([
      ["tok1", { name: "alice", uid: "uid-1", groups: [] }],
      ["tok2", { name: "bob", groups: ["devs", "ops"] }],
      ["tok3", { name: 'carol "c"', uid: "uid-3", groups: ["single"] }],
      ["tok4", { name: "dave", uid: "uid-4", groups: [] }],
    ]);
  });

  it("reads CRLF files", () => {
    expect(parseTokenFile("a,u1,1\r\nb,u2,2\r\n").get("b")).toEqual({ name: "u2", uid: "2", groups: [] });
  });

  it("keeps the last row of a repeated token", () => {
    expect(parseTokenFile("t,first,1\nt,second,2").get("t")).toEqual({
      name: "second",
      uid: "2",
      groups: [],
    });
  });

  it.each([
    { text: "ok,u,1\ntok,user", error: 'token file line 2: want token,user,uid[,"groups"], got 2 fields' },
    { text: "tok", error: 'token file line 1: want token,user,uid[,"groups"], got 1 fields' },
    { text: ",user,uid", error: "token file line 1: token and user must not be empty" },
    { text: "\n\ntok,,uid", error: "token file line 3: token and user must not be empty" },
    { text: 'a,b,c\nb,c,d\nt,"u,1', error: "token file line 3: unterminated quoted field" },
    { text: 't,"u"x,1', error: "token file line 1: extraneous text after a quoted field" },
  ])("names the bad line: $error", ({ text, error }) => {
    expect(() => parseTokenFile(text)).toThrow(error);
  });

  it("authenticates the file's tokens and nothing else", async () => {
    const a = tokenFileAuthenticator(parseTokenFile('secret-token,alice,uid-1,"devs"'));
    expect(await a.authenticate("secret-token")).toEqual({
      user: { name: "alice", uid: "uid-1", groups: ["devs"] },
    });
    expect(await a.authenticate("other")).toBeUndefined();
  });
});

describe("bearerToken", () => {
  it.each([
    { header: "Bearer abc", want: "abc" },
    { header: "bearer abc", want: "abc" },
    // As kube-apiserver splits the header on single spaces: the second word is the token,
    // an empty one (two spaces) a token that fails, never no token at all.
    { header: "  Bearer abc  ", want: "abc" },
    { header: "Bearer   abc", want: "" },
    { header: "Basic YWxpY2U6cHc=", want: undefined },
    { header: "Bearer", want: undefined },
    { header: "Bearer a b", want: "a" },
    { header: undefined, want: undefined },
  ])("$header", ({ header, want }) => {
    expect(bearerToken({ authorization: header })).toBe(want);
  });
});

describe("createAuthenticator", () => {
  const alice: UserInfo = { name: "alice", uid: "1", groups: ["devs"] };
  const tokens = () => [
    fixed("file", (t) => (t === "good" ? { user: alice } : undefined)),
    fixed("refuser", (t) => (t === "refused" ? { error: "token revoked" } : undefined)),
  ];

  it("a verified client certificate: user = CN, groups = O + system:authenticated", async () => {
    const authn = createAuthenticator({ clientCertificates: true, tokens: tokens(), anonymous: true });
    expect(
      await authn.authenticate({
        headers: {},
        clientCertificate: { commonName: "system:admin", organizations: ["system:masters"], verified: true },
      }),
    ).toEqual({ user: { name: "system:admin", groups: ["system:masters", "system:authenticated"] } });
    expect(
      await authn.authenticate({
        headers: {},
        clientCertificate: {
          commonName: "x",
          organizations: ["system:authenticated", "a"],
          verified: true,
        },
      }),
    ).toEqual({ user: { name: "x", groups: ["system:authenticated", "a"] } });
  });

  it("a verified client certificate wins over a bearer token", async () => {
    const authn = createAuthenticator({ clientCertificates: true, tokens: tokens(), anonymous: true });
    expect(
      await authn.authenticate({
        headers: { authorization: "Bearer good" },
        clientCertificate: { commonName: "cert-user", organizations: [], verified: true },
      }),
    ).toEqual({ user: { name: "cert-user", groups: ["system:authenticated"] } });
  });

  it("an unverified client certificate without a token is refused, never anonymous", async () => {
    const authn = createAuthenticator({ clientCertificates: true, tokens: tokens(), anonymous: true });
    const outcome = await authn.authenticate({
      headers: {},
      clientCertificate: { commonName: "mallory", organizations: ["system:masters"], verified: false },
    });
    expect(outcome).toEqual({ error: expect.stringContaining("x509") });
    const withReason = await authn.authenticate({
      headers: {},
      clientCertificate: {
        commonName: "mallory",
        organizations: [],
        verified: false,
        error: "certificate has expired or is not yet valid",
      },
    });
    expect(withReason).toEqual({ error: "x509: certificate has expired or is not yet valid" });
  });

  it("an unverified client certificate with a good token: the token's user", async () => {
    const authn = createAuthenticator({ clientCertificates: true, tokens: tokens(), anonymous: true });
    expect(
      await authn.authenticate({
        headers: { authorization: "Bearer good" },
        clientCertificate: { commonName: "mallory", organizations: [], verified: false },
      }),
    ).toEqual({ user: { ...alice, groups: ["devs", "system:authenticated"] } });
  });

  it("client certificates are ignored when the server has no client CA", async () => {
    const authn = createAuthenticator({ clientCertificates: false, tokens: [], anonymous: true });
    expect(
      await authn.authenticate({
        headers: {},
        clientCertificate: { commonName: "system:admin", organizations: ["system:masters"], verified: true },
      }),
    ).toEqual({ user: ANONYMOUS_USER });
  });

  it("a bearer token: the first authenticator that knows it, plus system:authenticated", async () => {
    const authn = createAuthenticator({ clientCertificates: true, tokens: tokens(), anonymous: true });
    expect(await authn.authenticate(bearer("good"))).toEqual({
      user: { name: "alice", uid: "1", groups: ["devs", "system:authenticated"] },
    });
  });

  it("a bearer token nobody accepts is refused: invalid bearer token, even with anonymous on", async () => {
    const authn = createAuthenticator({ clientCertificates: true, tokens: tokens(), anonymous: true });
    expect(await authn.authenticate(bearer("unknown"))).toEqual({ error: "invalid bearer token" });
    const none = createAuthenticator({ clientCertificates: true, tokens: [], anonymous: true });
    expect(await none.authenticate(bearer("unknown"))).toEqual({ error: "invalid bearer token" });
  });

  it("a malformed bearer header is a failed token, never anonymous", async () => {
    const authn = createAuthenticator({ clientCertificates: true, tokens: tokens(), anonymous: true });
    expect(await authn.authenticate({ headers: { authorization: "Bearer  good" } })).toEqual({
      error: "invalid bearer token",
    });
    expect(await authn.authenticateToken("go od")).toEqual({ error: "invalid bearer token" });
  });

  it("a TokenReview's audiences: an audience-unaware authenticator answers only for the API's", async () => {
    const authn = createAuthenticator({
      clientCertificates: false,
      tokens: tokens(),
      anonymous: true,
      apiAudiences: ["api"],
    });
    expect(await authn.authenticateToken("good")).toMatchObject({ audiences: ["api"] });
    expect(await authn.authenticateToken("good", ["vault", "api"])).toMatchObject({ audiences: ["api"] });
    expect(await authn.authenticateToken("good", ["vault"])).toEqual({ error: "invalid bearer token" });
  });

  it("a token refused by an authenticator reports why", async () => {
    const authn = createAuthenticator({ clientCertificates: true, tokens: tokens(), anonymous: true });
    expect(await authn.authenticate(bearer("refused"))).toEqual({ error: "token revoked" });
  });

  it("a refusal does not stop a later authenticator from accepting", async () => {
    const authn = createAuthenticator({
      clientCertificates: false,
      tokens: [fixed("no", () => ({ error: "not for me" })), fixed("yes", () => ({ user: alice }))],
      anonymous: false,
    });
    expect(await authn.authenticate(bearer("t"))).toEqual({
      user: { ...alice, groups: ["devs", "system:authenticated"] },
    });
  });

  it("no credentials: system:anonymous in system:unauthenticated, or refused with anonymous off", async () => {
    const on = createAuthenticator({ clientCertificates: true, tokens: tokens(), anonymous: true });
    expect(await on.authenticate({ headers: {} })).toEqual({
      user: { name: "system:anonymous", groups: ["system:unauthenticated"] },
    });
    expect(await on.authenticate({ headers: { authorization: "Basic abc" } })).toEqual({
      user: ANONYMOUS_USER,
    });
    const off = createAuthenticator({ clientCertificates: true, tokens: tokens(), anonymous: false });
    const outcome = await off.authenticate({ headers: {} });
    expect("error" in outcome).toBe(true);
  });

  it("caches a token's user for 10 s", async () => {
    let now = 1_000_000;
    const counting = fixed("counting", (t) => (t === "good" ? { user: alice } : undefined));
    const authn = createAuthenticator({
      clientCertificates: false,
      tokens: [counting],
      anonymous: true,
      now: () => now,
    });
    const want = { user: { ...alice, groups: ["devs", "system:authenticated"] } };
    expect(await authn.authenticate(bearer("good"))).toEqual(want);
    now += 9_999;
    expect(await authn.authenticate(bearer("good"))).toEqual(want);
    expect(counting.calls).toBe(1);
    now += 2;
    expect(await authn.authenticate(bearer("good"))).toEqual(want);
    expect(counting.calls).toBe(2);
  });

  it("caches no longer than the token is valid", async () => {
    let now = 1_000_000;
    const counting = fixed("counting", () => ({ user: alice, expiresAt: 1_002_000 }));
    const authn = createAuthenticator({
      clientCertificates: false,
      tokens: [counting],
      anonymous: true,
      now: () => now,
    });
    await authn.authenticate(bearer("t"));
    now = 1_001_999;
    await authn.authenticate(bearer("t"));
    expect(counting.calls).toBe(1);
    now = 1_002_000;
    await authn.authenticate(bearer("t"));
    expect(counting.calls).toBe(2);
  });

  it("does not cache refusals, and caches per token", async () => {
    const now = 1_000_000;
    const counting = fixed("counting", (t) => (t === "good" ? { user: alice } : { error: "no" }));
    const authn = createAuthenticator({
      clientCertificates: false,
      tokens: [counting],
      anonymous: true,
      now: () => now,
    });
    await authn.authenticate(bearer("bad"));
    await authn.authenticate(bearer("bad"));
    expect(counting.calls).toBe(2);
    await authn.authenticate(bearer("good"));
    await authn.authenticate(bearer("good"));
    expect(counting.calls).toBe(3);
    expect(await authn.authenticate(bearer("bad"))).toEqual({ error: "no" });
  });
});

describe("serviceAccountAuthenticator", () => {
  const ISSUER = "https://kubernetes.default.svc.cluster.local";
  const keyPem = generateKeyPem();
  const signer = jwtSigner(keyPem);
  const verifier = jwtVerifier([publicKeyPemOf(keyPem)]);
  const settings = { issuers: [ISSUER], audiences: [ISSUER], verifier };
  const T0 = Date.UTC(2030, 0, 1);

  function world(): MemoryLookup {
    const lookup = new MemoryLookup();
    lookup.put("serviceaccounts", {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "builder", namespace: "ci", uid: "sa-uid-1" },
    });
    return lookup;
  }

  const bound = (
    more: { audiences?: string[]; boundObject?: { kind: "Pod" | "Secret"; name: string; uid: string } } = {},
  ) =>
    issueBoundToken(
      { ...settings, signer, maxExpirationSeconds: 0 },
      {
        namespace: "ci",
        serviceAccount: { name: "builder", uid: "sa-uid-1" },
        audiences: more.audiences ?? [ISSUER],
        expirationSeconds: 3600,
        now: T0,
        ...(more.boundObject ? { boundObject: more.boundObject } : {}),
      },
    );

  const jtiOf = (token: string) =>
    (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { jti: string }).jti;

  it("a valid bound token: the account's user, groups, uid and credential id", async () => {
    const { token, expiresAt } = bound();
    expect(expiresAt).toBe(T0 + 3_600_000);
    const authn = serviceAccountAuthenticator(settings, world(), () => T0 + 1000);
    expect(await authn.authenticate(token)).toEqual({
      user: {
        name: "system:serviceaccount:ci:builder",
        uid: "sa-uid-1",
        groups: ["system:serviceaccounts", "system:serviceaccounts:ci"],
        extra: { "authentication.kubernetes.io/credential-id": [`JTI=${jtiOf(token)}`] },
      },
      expiresAt,
      audiences: [ISSUER],
    });
  });

  it("writes the claims kube-apiserver writes", () => {
    const { token } = bound();
    const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<
      string,
      unknown
    >;
    expect(Object.keys(claims)).toEqual(["aud", "exp", "iat", "iss", "jti", "kubernetes.io", "nbf", "sub"]);
    expect(claims).toMatchObject({
      aud: [ISSUER],
      iss: ISSUER,
      iat: T0 / 1000,
      nbf: T0 / 1000,
      exp: T0 / 1000 + 3600,
      sub: "system:serviceaccount:ci:builder",
      "kubernetes.io": { namespace: "ci", serviceaccount: { name: "builder", uid: "sa-uid-1" } },
    });
  });

  it("expired: refused after exp plus 60 s of leeway", async () => {
    const { token } = bound();
    const exp = T0 + 3_600_000;
    expect(
      isUser(await serviceAccountAuthenticator(settings, world(), () => exp + 59_000).authenticate(token)),
    ).toBe(true);
    expect(
      await serviceAccountAuthenticator(settings, world(), () => exp + 61_000).authenticate(token),
    ).toEqual({
      error: "service account token has expired",
    });
  });

  it("not valid yet: refused before nbf minus 60 s", async () => {
    const { token } = bound();
    expect(
      isUser(await serviceAccountAuthenticator(settings, world(), () => T0 - 59_000).authenticate(token)),
    ).toBe(true);
    expect(
      await serviceAccountAuthenticator(settings, world(), () => T0 - 61_000).authenticate(token),
    ).toEqual({
      error: "service account token is not valid yet",
    });
  });

  it("wrong audience: refused", async () => {
    const { token } = bound({ audiences: ["vault"] });
    const authn = (t: string, audiences: string[]) =>
      serviceAccountAuthenticator(settings, world(), () => T0).authenticate(t, audiences);
    const r = await serviceAccountAuthenticator(settings, world(), () => T0).authenticate(token);
    expect(r).toEqual({
      error: `token audiences ["vault"] is invalid for the target audiences ["${ISSUER}"]`,
    });
    const forVault = serviceAccountAuthenticator(
      { ...settings, audiences: ["vault", "other"] },
      world(),
      () => T0,
    );
    expect(isUser(await forVault.authenticate(token))).toBe(true);
    // A TokenReview may ask for other audiences than the API's: the token is checked against those.
    expect(await authn(token, ["vault"])).toMatchObject({ audiences: ["vault"] });
    expect(await authn(token, ["db"])).toEqual({
      error: `token audiences ["vault"] is invalid for the target audiences ["db"]`,
    });
  });

  it("another issuer's JWT, or something that is not a JWT, is not ours", async () => {
    const authn = serviceAccountAuthenticator(settings, world(), () => T0);
    const foreign = signer.sign({ iss: "https://accounts.example.com", sub: "x", exp: T0 / 1000 + 60 });
    expect(await authn.authenticate(foreign)).toBeUndefined();
    expect(await authn.authenticate("abcdef.0123456789abcdef")).toBeUndefined();
    expect(await authn.authenticate("a.b.c")).toBeUndefined();
    expect(await authn.authenticate("opaque-token")).toBeUndefined();
  });

  it("one of several issuers is accepted", async () => {
    const { token } = bound();
    const authn = serviceAccountAuthenticator(
      { ...settings, issuers: ["https://new.example", ISSUER] },
      world(),
      () => T0,
    );
    expect(isUser(await authn.authenticate(token))).toBe(true);
  });

  it("our issuer with a bad signature is refused", async () => {
    const { token } = bound();
    const other = jwtSigner(generateKeyPem());
    const [, payload] = token.split(".");
    const forged = other.sign(
      JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>,
    );
    const authn = serviceAccountAuthenticator(settings, world(), () => T0);
    expect(isError(await authn.authenticate(forged))).toBe(true);
  });

  it("the account deleted, or recreated with another uid: refused", async () => {
    const { token } = bound();
    const gone = world();
    gone.remove("serviceaccounts", "ci", "builder");
    expect(await serviceAccountAuthenticator(settings, gone, () => T0).authenticate(token)).toEqual({
      error: "service account ci/builder has been deleted",
    });
    const recreated = world();
    recreated.put("serviceaccounts", {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "builder", namespace: "ci", uid: "sa-uid-2" },
    });
    expect(await serviceAccountAuthenticator(settings, recreated, () => T0).authenticate(token)).toEqual({
      error: "service account UID (sa-uid-2) does not match claim (sa-uid-1)",
    });
  });

  it("a pod-bound token: valid while the pod exists with its uid, with pod extras", async () => {
    const { token } = bound({ boundObject: { kind: "Pod", name: "runner-1", uid: "pod-uid-1" } });
    const lookup = world();
    lookup.put("pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "runner-1", namespace: "ci", uid: "pod-uid-1" },
    });
    const authn = serviceAccountAuthenticator(settings, lookup, () => T0);
    const r = await authn.authenticate(token);
    expect(isUser(r) && r.user.extra).toEqual({
      "authentication.kubernetes.io/credential-id": [`JTI=${jtiOf(token)}`],
      "authentication.kubernetes.io/pod-name": ["runner-1"],
      "authentication.kubernetes.io/pod-uid": ["pod-uid-1"],
    });
    lookup.put("pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "runner-1", namespace: "ci", uid: "pod-uid-2" },
    });
    expect(isError(await authn.authenticate(token))).toBe(true);
    lookup.remove("pods", "ci", "runner-1");
    expect(isError(await authn.authenticate(token))).toBe(true);
  });

  it("a secret-bound token: valid while the secret exists with its uid", async () => {
    const { token } = bound({ boundObject: { kind: "Secret", name: "s", uid: "secret-uid" } });
    const lookup = world();
    const secret: StoredObject = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s", namespace: "ci", uid: "secret-uid" },
    };
    lookup.put("secrets", secret);
    const authn = serviceAccountAuthenticator(settings, lookup, () => T0);
    expect(isUser(await authn.authenticate(token))).toBe(true);
    lookup.put("secrets", {
      ...secret,
      metadata: { ...secret.metadata, deletionTimestamp: "2030-01-01T00:00:00Z" },
    });
    expect(isError(await authn.authenticate(token))).toBe(true);
  });

  describe("legacy Secret tokens", () => {
    const token = issueLegacyToken(
      signer,
      { namespace: "ci", name: "builder-token" },
      { name: "builder", uid: "sa-uid-1" },
    );
    const tokenSecret = (value: string): StoredObject => ({
      apiVersion: "v1",
      kind: "Secret",
      type: "kubernetes.io/service-account-token",
      metadata: {
        name: "builder-token",
        namespace: "ci",
        uid: "uid-builder-token",
        annotations: { "kubernetes.io/service-account.name": "builder" },
      },
      data: { token: Buffer.from(value).toString("base64") },
    });

    it("valid while the Secret holds this token", async () => {
      const lookup = world();
      lookup.put("secrets", tokenSecret(token));
      const authn = serviceAccountAuthenticator(settings, lookup, () => T0);
      expect(await authn.authenticate(token)).toEqual({
        user: {
          name: "system:serviceaccount:ci:builder",
          uid: "sa-uid-1",
          groups: ["system:serviceaccounts", "system:serviceaccounts:ci"],
        },
        // A legacy token has no audience: it is good for the API's.
        audiences: [ISSUER],
      });
      lookup.put("secrets", tokenSecret("another token"));
      expect(isError(await authn.authenticate(token))).toBe(true);
      lookup.remove("secrets", "ci", "builder-token");
      expect(isError(await authn.authenticate(token))).toBe(true);
    });

    it("refused when the account is gone or has another uid", async () => {
      const lookup = world();
      lookup.put("secrets", tokenSecret(token));
      lookup.put("serviceaccounts", {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "builder", namespace: "ci", uid: "sa-uid-2" },
      });
      const authn = serviceAccountAuthenticator(settings, lookup, () => T0);
      expect(isError(await authn.authenticate(token))).toBe(true);
      lookup.remove("serviceaccounts", "ci", "builder");
      expect(await authn.authenticate(token)).toEqual({
        error: "service account ci/builder has been deleted",
      });
    });

    it("has only the legacy claims", () => {
      const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<
        string,
        unknown
      >;
      expect(claims).toEqual({
        iss: "kubernetes/serviceaccount",
        "kubernetes.io/serviceaccount/namespace": "ci",
        "kubernetes.io/serviceaccount/secret.name": "builder-token",
        "kubernetes.io/serviceaccount/service-account.name": "builder",
        "kubernetes.io/serviceaccount/service-account.uid": "sa-uid-1",
        sub: "system:serviceaccount:ci:builder",
      });
    });
  });

  it("parseServiceAccountUsername", () => {
    expect(parseServiceAccountUsername("system:serviceaccount:ci:builder")).toEqual({
      namespace: "ci",
      name: "builder",
    });
    expect(parseServiceAccountUsername("system:serviceaccount:ci")).toBeUndefined();
    expect(parseServiceAccountUsername("system:serviceaccount:ci:a:b")).toBeUndefined();
    expect(parseServiceAccountUsername("system:serviceaccount::a")).toBeUndefined();
    expect(parseServiceAccountUsername("alice")).toBeUndefined();
  });
});

describe("bootstrapTokenAuthenticator", () => {
  const NOW = Date.UTC(2030, 5, 1, 12, 0, 0);
  const ID = "abcdef";
  const SECRET = "0123456789abcdef";
  const TOKEN = `${ID}.${SECRET}`;

  /** A Secret as `karmadactl token create` writes it: every value base64. */
  function tokenSecret(
    data: Record<string, string | undefined>,
    more: { name?: string; type?: string; deletionTimestamp?: string } = {},
  ): StoredObject {
    const written = Object.entries(data).filter((e): e is [string, string] => e[1] !== undefined);
    return {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: more.name ?? `bootstrap-token-${ID}`,
        namespace: "kube-system",
        uid: "uid-bootstrap-token",
        ...(more.deletionTimestamp ? { deletionTimestamp: more.deletionTimestamp } : {}),
      },
      type: more.type ?? "bootstrap.kubernetes.io/token",
      data: Object.fromEntries(written.map(([k, v]) => [k, Buffer.from(v).toString("base64")])),
    };
  }

  const defaults = {
    "token-id": ID,
    "token-secret": SECRET,
    expiration: "2030-06-02T12:00:00Z",
    "usage-bootstrap-signing": "true",
    "usage-bootstrap-authentication": "true",
    "auth-extra-groups": "system:bootstrappers:karmada:default-cluster-token",
  };

  async function authenticate(secret: StoredObject | undefined, token = TOKEN): Promise<TokenResult> {
    const lookup = new MemoryLookup();
    if (secret) lookup.put("secrets", secret);
    return bootstrapTokenAuthenticator(lookup, () => NOW).authenticate(token);
  }

  it("a valid token: system:bootstrap:<id> in system:bootstrappers and its extra groups", async () => {
    expect(await authenticate(tokenSecret(defaults))).toEqual({
      user: {
        name: "system:bootstrap:abcdef",
        groups: ["system:bootstrappers", "system:bootstrappers:karmada:default-cluster-token"],
      },
      expiresAt: Date.parse("2030-06-02T12:00:00Z"),
    });
  });

  it("through the request authenticator, the user is also system:authenticated", async () => {
    const lookup = new MemoryLookup();
    lookup.put("secrets", tokenSecret(defaults));
    const authn = createAuthenticator({
      clientCertificates: true,
      tokens: [bootstrapTokenAuthenticator(lookup, () => NOW)],
      anonymous: true,
      now: () => NOW,
    });
    expect(await authn.authenticate(bearer(TOKEN))).toEqual({
      user: {
        name: "system:bootstrap:abcdef",
        groups: [
          "system:bootstrappers",
          "system:bootstrappers:karmada:default-cluster-token",
          "system:authenticated",
        ],
      },
    });
    const wrong = await authn.authenticate(bearer(`${ID}.ffffffffffffffff`));
    expect("error" in wrong).toBe(true);
  });

  it("no extra groups, no expiration: only system:bootstrappers, never expires", async () => {
    expect(
      await authenticate(tokenSecret({ ...defaults, expiration: undefined, "auth-extra-groups": undefined })),
    ).toEqual({ user: { name: "system:bootstrap:abcdef", groups: ["system:bootstrappers"] } });
  });

  it("several extra groups", async () => {
    const r = await authenticate(
      tokenSecret({ ...defaults, "auth-extra-groups": "system:bootstrappers:a,system:bootstrappers:b-2:c" }),
    );
    expect(isUser(r) && r.user.groups).toEqual([
      "system:bootstrappers",
      "system:bootstrappers:a",
      "system:bootstrappers:b-2:c",
    ]);
  });

  const refused: Array<{ name: string; secret: StoredObject; token?: string }> = [
    { name: "wrong secret", secret: tokenSecret(defaults), token: `${ID}.fedcba9876543210` },
    { name: "expired", secret: tokenSecret({ ...defaults, expiration: "2030-06-01T11:59:59Z" }) },
    { name: "expiring right now", secret: tokenSecret({ ...defaults, expiration: "2030-06-01T12:00:00Z" }) },
    { name: "unreadable expiration", secret: tokenSecret({ ...defaults, expiration: "tomorrow" }) },
    {
      name: "no usage-bootstrap-authentication",
      secret: tokenSecret({ ...defaults, "usage-bootstrap-authentication": undefined }),
    },
    {
      name: "usage-bootstrap-authentication not exactly true",
      secret: tokenSecret({ ...defaults, "usage-bootstrap-authentication": "True" }),
    },
    { name: "bad extra group", secret: tokenSecret({ ...defaults, "auth-extra-groups": "system:masters" }) },
    {
      name: "one bad extra group among good ones",
      secret: tokenSecret({
        ...defaults,
        "auth-extra-groups": "system:bootstrappers:ok,system:bootstrappers:Bad",
      }),
    },
    { name: "token-id differs", secret: tokenSecret({ ...defaults, "token-id": "zzzzzz" }) },
    { name: "no token-secret", secret: tokenSecret({ ...defaults, "token-secret": undefined }) },
    { name: "not of the bootstrap type", secret: tokenSecret(defaults, { type: "Opaque" }) },
    { name: "being deleted", secret: tokenSecret(defaults, { deletionTimestamp: "2030-06-01T11:00:00Z" }) },
  ];
  it.each(refused)("refused: $name", async ({ secret, token }) => {
    const r = await authenticate(secret, token);
    expect(isUser(r)).toBe(false);
  });

  it("refused: no such Secret", async () => {
    expect(isUser(await authenticate(undefined))).toBe(false);
    expect(isUser(await authenticate(tokenSecret(defaults, { name: "bootstrap-token-zzzzzz" })))).toBe(false);
  });

  it.each([
    "abcdef0123456789abcdef",
    "abcde.0123456789abcdef",
    "abcdef.0123456789abcde",
    "ABCDEF.0123456789ABCDEF",
    "abcdef.0123456789abcdef0",
    " abcdef.0123456789abcdef",
    "abcdef.0123456789abcdef\n",
    "eyJhbGciOiJFUzI1NiJ9.e30.c2ln",
    "",
  ])("a token not of the form <id>.<secret> is not ours: %j", async (token) => {
    expect(await authenticate(tokenSecret(defaults), token)).toBeUndefined();
  });
});

describe("authentication corners as kube-apiserver has them", () => {
  it("a verified certificate without a common name is no credential: the request is anonymous", async () => {
    const authn = createAuthenticator({ clientCertificates: true, tokens: [], anonymous: true });
    expect(
      await authn.authenticate({
        headers: {},
        clientCertificate: { commonName: "", organizations: ["x"], verified: true },
      }),
    ).toEqual({ user: { name: "system:anonymous", groups: ["system:unauthenticated"] } });
  });

  it("a certificate user carries its fingerprint as credential id", async () => {
    const authn = createAuthenticator({ clientCertificates: true, tokens: [], anonymous: true });
    expect(
      await authn.authenticate({
        headers: {},
        clientCertificate: { commonName: "bob", organizations: [], verified: true, sha256: "ab12" },
      }),
    ).toEqual({
      user: {
        name: "bob",
        groups: ["system:authenticated"],
        extra: { "authentication.kubernetes.io/credential-id": ["X509SHA256=ab12"] },
      },
    });
  });

  it("a refused bootstrap token is no opinion: the request ends in invalid bearer token", async () => {
    const authn = createAuthenticator({
      clientCertificates: false,
      tokens: [bootstrapTokenAuthenticator(new MemoryLookup())],
      anonymous: true,
    });
    expect(await authn.authenticate(bearer("abcdef.0123456789abcdef"))).toEqual({
      error: "invalid bearer token",
    });
  });

  it("bootstrap groups are a sorted set, and an extra group with a stray space is invalid", async () => {
    const secret = (groups: string): StoredObject => ({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "bootstrap-token-abcdef", namespace: "kube-system", uid: "uid-bootstrap-token" },
      type: "bootstrap.kubernetes.io/token",
      data: Object.fromEntries(
        Object.entries({
          "token-id": "abcdef",
          "token-secret": "0123456789abcdef",
          "usage-bootstrap-authentication": "true",
          "auth-extra-groups": groups,
        }).map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
      ),
    });
    const run = (groups: string) => {
      const lookup = new MemoryLookup();
      lookup.put("secrets", secret(groups));
      return bootstrapTokenAuthenticator(lookup).authenticate("abcdef.0123456789abcdef");
    };
    expect(await run("system:bootstrappers:b,system:bootstrappers:a,system:bootstrappers:a")).toMatchObject({
      user: { groups: ["system:bootstrappers", "system:bootstrappers:a", "system:bootstrappers:b"] },
    });
    expect(await run("system:bootstrappers:a, system:bootstrappers:b")).toBeUndefined();
    expect(await run("system:bootstrappers:a,,system:bootstrappers:b")).toBeUndefined();
  });
});
