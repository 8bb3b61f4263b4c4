import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../api/meta.ts";
import { verifyBootstrapSignature } from "../../pki/jws.ts";
import { clusterInfoSignatures } from "./bootstrap-tokens.ts";

const NOW = Date.UTC(2030, 0, 10, 0, 0, 0);
const KUBECONFIG =
  'apiVersion: v1\nclusters:\n- cluster:\n    server: https://10.0.0.1:5443\n  name: ""\nkind: Config\n';

/** A bootstrap-token Secret as `karmadactl token create` writes it (values base64). */
function token(
  id: string,
  secret: string,
  data: Record<string, string | undefined> = {},
  more: { name?: string; type?: string; deletionTimestamp?: string } = {},
): StoredObject {
  const all: Record<string, string | undefined> = {
    "token-id": id,
    "token-secret": secret,
    "usage-bootstrap-signing": "true",
    "usage-bootstrap-authentication": "true",
    ...data,
  };
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: more.name ?? `bootstrap-token-${id}`,
      namespace: "kube-system",
      uid: `uid-bootstrap-token-${id}`,
      ...(more.deletionTimestamp ? { deletionTimestamp: more.deletionTimestamp } : {}),
    },
    type: more.type ?? "bootstrap.kubernetes.io/token",
    data: Object.fromEntries(
      Object.entries(all)
        .filter((e): e is [string, string] => e[1] !== undefined)
        .map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
    ),
  };
}

/** The signature computed here, independently of the code under test. */
function expectedSignature(content: string, id: string, secret: string): string {
  const header = Buffer.from(`{"alg":"HS256","kid":"${id}"}`).toString("base64url");
  const payload = Buffer.from(content).toString("base64url");
  const mac = createHmac("sha256", secret).update(`${header}.${payload}`).digest("base64url");
  return `${header}..${mac}`;
}

describe("clusterInfoSignatures", () => {
  it("signs the kubeconfig with every valid signing token", () => {
    const got = clusterInfoSignatures(
      KUBECONFIG,
      [
        token("abcdef", "0123456789abcdef"),
        token("zyx987", "ffffffffffffffff", { expiration: "2030-01-11T00:00:00Z" }),
      ],
      NOW,
    );
    expect(got).toEqual({
      signatures: {
        "jws-kubeconfig-abcdef": expectedSignature(KUBECONFIG, "abcdef", "0123456789abcdef"),
        "jws-kubeconfig-zyx987": expectedSignature(KUBECONFIG, "zyx987", "ffffffffffffffff"),
      },
      nextExpiry: Date.UTC(2030, 0, 11),
    });
    expect(
      verifyBootstrapSignature(
        KUBECONFIG,
        got.signatures["jws-kubeconfig-abcdef"]!,
        "abcdef",
        "0123456789abcdef",
      ),
    ).toBe(true);
  });

  it("reports the earliest expiry among the signing tokens", () => {
    const got = clusterInfoSignatures(
      KUBECONFIG,
      [
        token("aaaaaa", "aaaaaaaaaaaaaaaa", { expiration: "2030-01-12T00:00:00Z" }),
        token("bbbbbb", "bbbbbbbbbbbbbbbb", { expiration: "2030-01-10T00:00:01Z" }),
        token("cccccc", "cccccccccccccccc"),
        // Not signing: its expiry does not matter here.
        token("dddddd", "dddddddddddddddd", {
          expiration: "2030-01-10T00:00:00.5Z",
          "usage-bootstrap-signing": undefined,
        }),
      ],
      NOW,
    );
    expect(Object.keys(got.signatures).sort()).toEqual([
      "jws-kubeconfig-aaaaaa",
      "jws-kubeconfig-bbbbbb",
      "jws-kubeconfig-cccccc",
    ]);
    expect(got.nextExpiry).toBe(Date.UTC(2030, 0, 10, 0, 0, 1));
  });

  it("no tokens, no signatures and no expiry", () => {
    expect(clusterInfoSignatures(KUBECONFIG, [], NOW)).toEqual({ signatures: {} });
  });

  const skipped: Array<{ name: string; secret: StoredObject }> = [
    {
      name: "without usage-bootstrap-signing",
      secret: token("abcdef", "0123456789abcdef", { "usage-bootstrap-signing": undefined }),
    },
    {
      name: "usage-bootstrap-signing not exactly true",
      secret: token("abcdef", "0123456789abcdef", { "usage-bootstrap-signing": "yes" }),
    },
    { name: "expired", secret: token("abcdef", "0123456789abcdef", { expiration: "2030-01-09T23:59:59Z" }) },
    {
      name: "expiring right now",
      secret: token("abcdef", "0123456789abcdef", { expiration: "2030-01-10T00:00:00Z" }),
    },
    { name: "unreadable expiration", secret: token("abcdef", "0123456789abcdef", { expiration: "soon" }) },
    {
      name: "being deleted",
      secret: token("abcdef", "0123456789abcdef", {}, { deletionTimestamp: "2030-01-09T00:00:00Z" }),
    },
    {
      name: "name does not match the token id",
      secret: token("abcdef", "0123456789abcdef", {}, { name: "bootstrap-token-zzzzzz" }),
    },
    { name: "no token-secret", secret: token("abcdef", "0123456789abcdef", { "token-secret": undefined }) },
    { name: "no token-id", secret: token("abcdef", "0123456789abcdef", { "token-id": undefined }) },
    { name: "not a bootstrap token", secret: token("abcdef", "0123456789abcdef", {}, { type: "Opaque" }) },
  ];
  it.each(skipped)("leaves out a token $name", ({ secret }) => {
    const valid = token("qwerty", "qwertyqwertyqwer");
    expect(clusterInfoSignatures(KUBECONFIG, [secret, valid], NOW)).toEqual({
      signatures: { "jws-kubeconfig-qwerty": expectedSignature(KUBECONFIG, "qwerty", "qwertyqwertyqwer") },
    });
  });

  it("signs exactly the kubeconfig string it is given", () => {
    const a = clusterInfoSignatures(KUBECONFIG, [token("abcdef", "0123456789abcdef")], NOW);
    const b = clusterInfoSignatures(`${KUBECONFIG}\n`, [token("abcdef", "0123456789abcdef")], NOW);
    expect(a.signatures["jws-kubeconfig-abcdef"]).not.toBe(b.signatures["jws-kubeconfig-abcdef"]);
  });
});
