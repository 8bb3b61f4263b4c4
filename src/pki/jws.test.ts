import { createHash, createHmac, generateKeyPairSync, type KeyObject, sign, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bootstrapSignature, jwtSigner, jwtVerifier, keyId, verifyBootstrapSignature } from "./jws.ts";
import { createCertificateAuthority } from "./x509.ts";

const b64url = (s: string | Buffer) => Buffer.from(s).toString("base64url");
const fromB64url = (s: string) => Buffer.from(s, "base64url").toString("utf8");

const KUBECONFIG = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: TFMwdExTMUNSVWRKVGlCRFJWSlVTVVpKUTBGVVJTMHRMUzB0Q2c9PQ==
    server: https://172.18.0.2:5443
  name: ""
contexts: null
current-context: ""
kind: Config
preferences: {}
users: null
`;

describe("bootstrapSignature", () => {
  const cases = [
    { name: "a kubeconfig", content: KUBECONFIG, id: "abcdef", secret: "0123456789abcdef" },
    { name: "empty content", content: "", id: "000000", secret: "aaaaaaaaaaaaaaaa" },
    { name: "non-ASCII content", content: "ünïcødé ✓\n", id: "z9z9z9", secret: "q1w2e3r4t5y6u7i8" },
  ];
  it.each(cases)("is a detached HS256 JWS: $name", ({ content, id, secret }) => {
    const sig = bootstrapSignature(content, id, secret);
    const parts = sig.split(".");
    expect(parts).toHaveLength(3);
    const [header, payload, mac] = parts as [string, string, string];
    expect(payload).toBe("");
    expect(sig).not.toContain("=");
    expect(fromB64url(header)).toBe(`{"alg":"HS256","kid":"${id}"}`);
    const want = createHmac("sha256", Buffer.from(secret, "ascii"))
      .update(`${header}.${b64url(content)}`)
      .digest("base64url");
    expect(mac).toBe(want);
    expect(Buffer.from(mac, "base64url")).toHaveLength(32);
  });

  it("matches a signature computed independently from its parts", () => {
    const header = b64url('{"alg":"HS256","kid":"abcdef"}');
    const mac = createHmac("sha256", "0123456789abcdef")
      .update(`${header}.${b64url(KUBECONFIG)}`)
      .digest("base64url");
    expect(bootstrapSignature(KUBECONFIG, "abcdef", "0123456789abcdef")).toBe(`${header}..${mac}`);
  });

  it("differs by content, id and secret", () => {
    const base = bootstrapSignature(KUBECONFIG, "abcdef", "0123456789abcdef");
    expect(bootstrapSignature(`${KUBECONFIG} `, "abcdef", "0123456789abcdef")).not.toBe(base);
    expect(bootstrapSignature(KUBECONFIG, "abcdeg", "0123456789abcdef")).not.toBe(base);
    expect(bootstrapSignature(KUBECONFIG, "abcdef", "0123456789abcdeg")).not.toBe(base);
  });
});

describe("verifyBootstrapSignature", () => {
  const id = "abcdef";
  const secret = "0123456789abcdef";
  const good = bootstrapSignature(KUBECONFIG, id, secret);
  const [h, , s] = good.split(".") as [string, string, string];
  const cases: Array<{
    name: string;
    content: string;
    signature: string;
    id: string;
    secret: string;
    want: boolean;
  }> = [
    { name: "the signature itself", content: KUBECONFIG, signature: good, id, secret, want: true },
    { name: "other content", content: `${KUBECONFIG}#`, signature: good, id, secret, want: false },
    {
      name: "other secret",
      content: KUBECONFIG,
      signature: good,
      id,
      secret: "0123456789abcdee",
      want: false,
    },
    { name: "other token id", content: KUBECONFIG, signature: good, id: "abcdee", secret, want: false },
    {
      name: "the attached form",
      content: KUBECONFIG,
      signature: `${h}.${b64url(KUBECONFIG)}.${s}`,
      id,
      secret,
      want: false,
    },
    { name: "padded base64", content: KUBECONFIG, signature: `${good}=`, id, secret, want: false },
    {
      name: "a flipped signature character",
      content: KUBECONFIG,
      signature: `${h}..${s.startsWith("A") ? "B" : "A"}${s.slice(1)}`,
      id,
      secret,
      want: false,
    },
    { name: "empty", content: KUBECONFIG, signature: "", id, secret, want: false },
  ];
  it.each(cases)("$name", ({ content, signature, id: tokenId, secret: tokenSecret, want }) => {
    expect(verifyBootstrapSignature(content, signature, tokenId, tokenSecret)).toBe(want);
  });
});

function pem(key: KeyObject, type: "pkcs8" | "spki"): string {
  return key.export({ type, format: "pem" }).toString();
}

const keys = {
  ES256: generateKeyPairSync("ec", { namedCurve: "P-256" }),
  ES384: generateKeyPairSync("ec", { namedCurve: "P-384" }),
  RS256: generateKeyPairSync("rsa", { modulusLength: 2048 }),
};
const otherEc = generateKeyPairSync("ec", { namedCurve: "P-256" });
const otherRsa = generateKeyPairSync("rsa", { modulusLength: 2048 });

const claims = {
  aud: ["https://kubernetes.default.svc"],
  exp: 1_700_003_600,
  iat: 1_700_000_000,
  iss: "https://kubernetes.default.svc",
  sub: "system:serviceaccount:ns:sa",
};

describe("jwtSigner / jwtVerifier", () => {
  const algs = [
    { alg: "ES256", hash: "sha256", pair: keys.ES256, other: otherEc, sigBytes: 64 },
    { alg: "ES384", hash: "sha384", pair: keys.ES384, other: otherEc, sigBytes: 96 },
    { alg: "RS256", hash: "sha256", pair: keys.RS256, other: otherRsa, sigBytes: 256 },
  ] as const;

  describe.each(algs)("$alg", ({ alg, hash, pair, other, sigBytes }) => {
    const token = jwtSigner(pem(pair.privateKey, "pkcs8")).sign(claims);
    const [h, p, s] = token.split(".") as [string, string, string];

    it("writes a compact JWS with alg and kid = b64url(SHA-256 of the SPKI DER)", () => {
      expect(token.split(".")).toHaveLength(3);
      expect(token).not.toContain("=");
      const kid = createHash("sha256")
        .update(pair.publicKey.export({ type: "spki", format: "der" }))
        .digest("base64url");
      expect(JSON.parse(fromB64url(h))).toEqual({ alg, kid });
      expect(keyId(pair.publicKey)).toBe(kid);
      expect(JSON.parse(fromB64url(p))).toEqual(claims);
    });

    it("signs header.payload so that node:crypto verifies it (raw R||S for ECDSA)", () => {
      const signature = Buffer.from(s, "base64url");
      expect(signature).toHaveLength(sigBytes);
      expect(
        verify(hash, Buffer.from(`${h}.${p}`), { key: pair.publicKey, dsaEncoding: "ieee-p1363" }, signature),
      ).toBe(true);
    });

    it("verifies with its public key, alone or among other keys", () => {
      expect(jwtVerifier([pem(pair.publicKey, "spki")]).verify(token)).toEqual(claims);
      expect(jwtVerifier([pem(other.publicKey, "spki"), pem(pair.publicKey, "spki")]).verify(token)).toEqual(
        claims,
      );
    });

    it("rejects a tampered payload", () => {
      const forged = b64url(JSON.stringify({ ...claims, sub: "system:serviceaccount:kube-system:admin" }));
      expect(jwtVerifier([pem(pair.publicKey, "spki")]).verify(`${h}.${forged}.${s}`)).toBeUndefined();
    });

    it("rejects a tampered header", () => {
      const header = JSON.parse(fromB64url(h)) as Record<string, unknown>;
      const changed = b64url(JSON.stringify({ ...header, typ: "JWT" }));
      expect(jwtVerifier([pem(pair.publicKey, "spki")]).verify(`${changed}.${p}.${s}`)).toBeUndefined();
    });

    it("rejects a token signed with another key", () => {
      expect(jwtVerifier([pem(other.publicKey, "spki")]).verify(token)).toBeUndefined();
      const foreign = jwtSigner(pem(other.privateKey, "pkcs8")).sign(claims);
      expect(jwtVerifier([pem(pair.publicKey, "spki")]).verify(foreign)).toBeUndefined();
    });

    it("rejects a token whose kid names another key, even with a valid signature", () => {
      const header = b64url(JSON.stringify({ alg, kid: keyId(other.publicKey) }));
      const input = `${header}.${p}`;
      const signature = sign(hash, Buffer.from(input), { key: pair.privateKey, dsaEncoding: "ieee-p1363" });
      expect(
        jwtVerifier([pem(pair.publicKey, "spki")]).verify(`${input}.${b64url(signature)}`),
      ).toBeUndefined();
    });
  });

  it("accepts a token without kid when a key verifies it", () => {
    const { privateKey, publicKey } = keys.ES256;
    const input = `${b64url('{"alg":"ES256"}')}.${b64url(JSON.stringify(claims))}`;
    const signature = sign("sha256", Buffer.from(input), { key: privateKey, dsaEncoding: "ieee-p1363" });
    expect(jwtVerifier([pem(publicKey, "spki")]).verify(`${input}.${b64url(signature)}`)).toEqual(claims);
  });

  it("rejects alg none, a wrong alg, and malformed tokens", () => {
    const token = jwtSigner(pem(keys.ES256.privateKey, "pkcs8")).sign(claims);
    const [h, p, s] = token.split(".") as [string, string, string];
    const verifier = jwtVerifier([pem(keys.ES256.publicKey, "spki")]);
    const header = JSON.parse(fromB64url(h)) as Record<string, unknown>;
    const cases = [
      `${b64url(JSON.stringify({ ...header, alg: "none" }))}.${p}.`,
      `${b64url(JSON.stringify({ ...header, alg: "RS256" }))}.${p}.${s}`,
      `${b64url(JSON.stringify({ ...header, alg: "HS256" }))}.${p}.${s}`,
      `${h}.${p}`,
      `${h}.${p}.${s}.extra`,
      `not-json.${p}.${s}`,
      `${h}.${b64url("[1,2]")}.${s}`,
      "",
    ];
    for (const c of cases) expect(verifier.verify(c)).toBeUndefined();
    expect(verifier.verify(token)).toEqual(claims);
  });

  it("verifies with a certificate's public key", async () => {
    const ca = await createCertificateAuthority({ commonName: "sa-signer" });
    const token = jwtSigner(ca.keyPem).sign(claims);
    expect(jwtVerifier([ca.certPem]).verify(token)).toEqual(claims);
  });

  it("refuses keys that are neither RSA nor ECDSA", () => {
    const ed = generateKeyPairSync("ed25519");
    expect(() => jwtSigner(pem(ed.privateKey, "pkcs8"))).toThrow(/unsupported signing key type ed25519/);
  });
});
