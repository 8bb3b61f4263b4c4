/**
 * Service account issuer discovery, as kube-apiserver serves it: an OpenID provider
 * configuration at `/.well-known/openid-configuration` and the token verification keys as a
 * JWK set at `/openid/v1/jwks`, so that relying parties outside the cluster (a cloud's
 * workload identity, another cluster) can check our service-account tokens. Readable by
 * `system:serviceaccounts` through the `system:service-account-issuer-discovery` binding.
 *
 * Rendered once; when the issuer is not an https URL without query and fragment, or no JWKS
 * URI can be made, the endpoints are not installed (404) and the reason is logged, as
 * kube-apiserver does.
 */
import { createPublicKey, type KeyObject } from "node:crypto";
import { jwsAlgorithm, keyId } from "../../pki/jws.ts";

export const OPENID_CONFIG_PATH = "/.well-known/openid-configuration";
export const JWKS_PATH = "/openid/v1/jwks";

export interface IssuerDiscovery {
  configJson: string;
  keysetJson: string;
}

/**
 * The two documents, or why they cannot be made. `jwksUri` is `--service-account-jwks-uri`;
 * without it, `https://<externalAddress>/openid/v1/jwks`.
 */
export function renderIssuerDiscovery(opts: {
  issuer: string;
  jwksUri?: string;
  externalAddress?: string;
  publicKeyPems: readonly string[];
}): IssuerDiscovery | { error: string } {
  const { issuer } = opts;
  if (issuer === "") return { error: "empty issuer URL" };
  if (!opts.jwksUri && !opts.externalAddress) {
    return { error: "either the JWKS URI or the default external address, or both, must be set" };
  }
  if (opts.publicKeyPems.length === 0) return { error: "no keys provided for validating keyset" };
  let iss: URL;
  try {
    iss = new URL(issuer);
  } catch {
    return { error: `parse ${JSON.stringify(issuer)}: invalid URL` };
  }
  if (iss.protocol !== "https:") return { error: `issuer URL must use https scheme, got: ${issuer}` };
  if (iss.search !== "") return { error: `issuer URL may not include a query, got: ${issuer}` };
  if (iss.hash !== "") return { error: `issuer URL may not include a fragment, got: ${issuer}` };
  const jwksUri = opts.jwksUri ?? `https://${opts.externalAddress}${JWKS_PATH}`;
  let jwks: URL;
  try {
    jwks = new URL(jwksUri);
  } catch {
    return { error: `parse ${JSON.stringify(jwksUri)}: invalid URL` };
  }
  if (jwks.protocol !== "https:") {
    return { error: `jwksURI requires https scheme, parsed as: ${jwksUri}` };
  }
  const keys = uniqueKeys(opts.publicKeyPems).map(publicJwk);
  const algorithms = [...new Set(keys.map((k) => k.alg))].sort();
  return {
    configJson: JSON.stringify({
      issuer,
      jwks_uri: jwksUri,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: algorithms,
    }),
    keysetJson: JSON.stringify({ keys }),
  };
}

function uniqueKeys(pems: readonly string[]): KeyObject[] {
  const byId = new Map<string, KeyObject>();
  for (const pem of pems) {
    const key = createPublicKey(pem);
    byId.set(keyId(key), key);
  }
  return [...byId.values()];
}

/** A public key as a JWK, its members in the order Go's jose writes them. */
function publicJwk(key: KeyObject): Record<string, string> & { alg: string } {
  const jwk = key.export({ format: "jwk" });
  const alg = jwsAlgorithm(key).alg;
  const common = { use: "sig", kty: String(jwk.kty), kid: keyId(key) };
  if (jwk.kty === "EC") {
    return { ...common, crv: String(jwk.crv), alg, x: String(jwk.x), y: String(jwk.y) };
  }
  return { ...common, alg, n: String(jwk.n), e: String(jwk.e) };
}
