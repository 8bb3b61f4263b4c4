/**
 * JSON Web Signatures in the two shapes Kubernetes uses:
 * - service-account tokens: compact JWTs signed RS256/ES256 with the service-account key,
 *   header `kid` = base64url(SHA-256 of the public key's DER), as kube-apiserver writes them;
 * - bootstrap-token signatures of `kube-public/cluster-info`: detached compact JWS, HS256
 *   keyed by the token secret, header exactly `{"alg":"HS256","kid":"<token-id>"}`, payload
 *   left out (`<header>..<signature>`); clients compare them as strings.
 */
import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  sign,
  timingSafeEqual,
  verify,
} from "node:crypto";

const b64url = (data: Buffer | string): string => Buffer.from(data).toString("base64url");

/** The signature algorithm for a key: RS256 for RSA, ES256/384/512 by curve. */
export function jwsAlgorithm(key: KeyObject): { alg: string; hash: string } {
  if (key.asymmetricKeyType === "rsa") return { alg: "RS256", hash: "sha256" };
  if (key.asymmetricKeyType === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === "secp384r1") return { alg: "ES384", hash: "sha384" };
    if (curve === "secp521r1") return { alg: "ES512", hash: "sha512" };
    return { alg: "ES256", hash: "sha256" };
  }
  throw new Error(`unsupported signing key type ${key.asymmetricKeyType ?? "unknown"}: use RSA or ECDSA`);
}

/** kube-apiserver's key id: base64url of SHA-256 over the public key's DER. */
export function keyId(publicKey: KeyObject): string {
  return b64url(
    createHash("sha256")
      .update(publicKey.export({ type: "spki", format: "der" }))
      .digest(),
  );
}

/** A signer of JWTs with one private key (PEM). */
export interface JwtSigner {
  sign(claims: Record<string, unknown>): string;
}

export function jwtSigner(privateKeyPem: string): JwtSigner {
  const key = createPrivateKey(privateKeyPem);
  const { alg, hash } = jwsAlgorithm(key);
  const header = b64url(JSON.stringify({ alg, kid: keyId(createPublicKey(key)) }));
  return {
    sign(claims) {
      const input = `${header}.${b64url(JSON.stringify(claims))}`;
      const signature = sign(hash, Buffer.from(input), { key, dsaEncoding: "ieee-p1363" });
      return `${input}.${b64url(signature)}`;
    },
  };
}

/** Verifies JWTs against any of several public keys (PEM: keys or certificates). */
export interface JwtVerifier {
  /** The payload when the signature checks out with one of the keys, else undefined. */
  verify(token: string): Record<string, unknown> | undefined;
}

export function jwtVerifier(publicKeyPems: readonly string[]): JwtVerifier {
  const keys = publicKeyPems.map((pem) => {
    const key = createPublicKey(pem);
    return { key, kid: keyId(key), ...jwsAlgorithm(key) };
  });
  return {
    verify(token) {
      const parts = token.split(".");
      if (parts.length !== 3) return undefined;
      const [h, p, s] = parts as [string, string, string];
      let header: { alg?: unknown; kid?: unknown };
      let payload: unknown;
      try {
        header = JSON.parse(Buffer.from(h, "base64url").toString("utf8"));
        payload = JSON.parse(Buffer.from(p, "base64url").toString("utf8"));
      } catch {
        return undefined;
      }
      if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return undefined;
      const input = Buffer.from(`${h}.${p}`);
      const signature = Buffer.from(s, "base64url");
      for (const k of keys) {
        if (header.alg !== k.alg) continue;
        if (typeof header.kid === "string" && header.kid !== "" && header.kid !== k.kid) continue;
        if (verify(k.hash, input, { key: k.key, dsaEncoding: "ieee-p1363" }, signature)) {
          return payload as Record<string, unknown>;
        }
      }
      return undefined;
    },
  };
}

/** The detached JWS a bootstrap token puts on `cluster-info`'s kubeconfig (`jws-kubeconfig-<id>`). */
export function bootstrapSignature(content: string, tokenId: string, tokenSecret: string): string {
  const header = b64url(`{"alg":"HS256","kid":"${tokenId}"}`);
  const mac = createHmac("sha256", tokenSecret)
    .update(`${header}.${b64url(content)}`)
    .digest();
  return `${header}..${b64url(mac)}`;
}

/** Whether `signature` is the bootstrap signature of `content` for this token (constant time). */
export function verifyBootstrapSignature(
  content: string,
  signature: string,
  tokenId: string,
  tokenSecret: string,
): boolean {
  const want = Buffer.from(bootstrapSignature(content, tokenId, tokenSecret));
  const got = Buffer.from(signature);
  return want.length === got.length && timingSafeEqual(want, got);
}
