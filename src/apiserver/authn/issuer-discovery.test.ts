import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { renderIssuerDiscovery } from "./issuer-discovery.ts";

const pem = (type: "rsa" | "ec") =>
  (type === "rsa"
    ? generateKeyPairSync("rsa", { modulusLength: 2048 })
    : generateKeyPairSync("ec", { namedCurve: "P-256" })
  ).publicKey.export({ type: "spki", format: "pem" }) as string;

describe("service account issuer discovery", () => {
  it("lists each key once, RSA and EC, with the algorithms sorted", () => {
    const rsa = pem("rsa");
    const out = renderIssuerDiscovery({
      issuer: "https://issuer.example",
      externalAddress: "10.0.0.1:6443",
      publicKeyPems: [rsa, pem("ec"), rsa],
    });
    if ("error" in out) throw new Error(out.error);
    expect(JSON.parse(out.configJson)).toMatchObject({
      jwks_uri: "https://10.0.0.1:6443/openid/v1/jwks",
      id_token_signing_alg_values_supported: ["ES256", "RS256"],
    });
    const { keys } = JSON.parse(out.keysetJson) as { keys: Array<Record<string, string>> };
    expect(keys.map((k) => Object.keys(k))).toEqual([
      ["use", "kty", "kid", "alg", "n", "e"],
      ["use", "kty", "kid", "crv", "alg", "x", "y"],
    ]);
  });

  it("prefers --service-account-jwks-uri and refuses what kube-apiserver refuses", () => {
    const keys = [pem("ec")];
    const ok = renderIssuerDiscovery({
      issuer: "https://issuer.example/path",
      jwksUri: "https://keys.example/jwks",
      publicKeyPems: keys,
    });
    expect("error" in ok ? ok.error : JSON.parse(ok.configJson).jwks_uri).toBe("https://keys.example/jwks");
    const error = (o: Parameters<typeof renderIssuerDiscovery>[0]) => {
      const r = renderIssuerDiscovery(o);
      return "error" in r ? r.error : undefined;
    };
    const at = { externalAddress: "h:1", publicKeyPems: keys };
    expect(error({ issuer: "", ...at })).toBe("empty issuer URL");
    expect(error({ issuer: "http://issuer.example", ...at })).toBe(
      "issuer URL must use https scheme, got: http://issuer.example",
    );
    expect(error({ issuer: "https://i.example?a=b", ...at })).toBe(
      "issuer URL may not include a query, got: https://i.example?a=b",
    );
    expect(error({ issuer: "https://i.example#f", ...at })).toBe(
      "issuer URL may not include a fragment, got: https://i.example#f",
    );
    expect(error({ issuer: "https://i.example", publicKeyPems: keys })).toBe(
      "either the JWKS URI or the default external address, or both, must be set",
    );
    expect(error({ issuer: "https://i.example", externalAddress: "h:1", publicKeyPems: [] })).toBe(
      "no keys provided for validating keyset",
    );
    expect(error({ issuer: "https://i.example", jwksUri: "http://k/jwks", publicKeyPems: keys })).toBe(
      "jwksURI requires https scheme, parsed as: http://k/jwks",
    );
  });
});
