import { createHash, X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { TOKEN_PATTERN } from "../../api/bootstrap-token.ts";
import { createCertificateAuthority } from "../../pki/x509.ts";
import { tabwriterTable as renderTable } from "../io.ts";
import { generateBootstrapToken, registerCommand, shortHumanDuration } from "./token.ts";

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe("shortHumanDuration", () => {
  const cases: Array<{ ms: number; want: string }> = [
    { ms: 0, want: "0s" },
    { ms: 999, want: "0s" },
    { ms: 1000, want: "1s" },
    { ms: 59_999, want: "59s" },
    { ms: M, want: "1m" },
    { ms: 59 * M + 59 * S, want: "59m" },
    { ms: H, want: "1h" },
    // A fresh 24h token, listed a moment later.
    { ms: D - 1, want: "23h" },
    { ms: D, want: "1d" },
    { ms: 364 * D + 23 * H, want: "364d" },
    { ms: 365 * D, want: "1y" },
    { ms: 2 * 365 * D - 1, want: "1y" },
    { ms: 2 * 365 * D, want: "2y" },
    // Up to a second in the past still reads as now.
    { ms: -1, want: "0s" },
    { ms: -999, want: "0s" },
    { ms: -1000, want: "0s" },
    { ms: -2000, want: "<invalid>" },
    { ms: -3 * D, want: "<invalid>" },
  ];
  it.each(cases)("$ms ms → $want", ({ ms, want }) => {
    expect(shortHumanDuration(ms)).toBe(want);
  });
});

describe("renderTable", () => {
  it("pads each column to its widest cell plus three spaces, the last one not at all", () => {
    const rows = [
      ["TOKEN", "TTL", "EXPIRES", "USAGES", "DESCRIPTION", "EXTRA GROUPS"],
      [
        "abcdef.0123456789abcdef",
        "23h",
        "2030-01-02T00:00:00Z",
        "authentication,signing",
        "<none>",
        "system:bootstrappers:karmada:default-cluster-token",
      ],
      ["zzzzzz.zzzzzzzzzzzzzzzz", "<forever>", "<never>", "<none>", "for CI", "<none>"],
    ];
    expect(renderTable(rows)).toBe(
      [
        "TOKEN                     TTL         EXPIRES                USAGES                   DESCRIPTION   EXTRA GROUPS",
        "abcdef.0123456789abcdef   23h         2030-01-02T00:00:00Z   authentication,signing   <none>        system:bootstrappers:karmada:default-cluster-token",
        "zzzzzz.zzzzzzzzzzzzzzzz   <forever>   <never>                <none>                   for CI        <none>",
        "",
      ].join("\n"),
    );
  });

  it("a header alone", () => {
    expect(renderTable([["TOKEN", "TTL", "EXPIRES", "USAGES", "DESCRIPTION", "EXTRA GROUPS"]])).toBe(
      "TOKEN   TTL   EXPIRES   USAGES   DESCRIPTION   EXTRA GROUPS\n",
    );
  });

  it("one column", () => {
    expect(renderTable([["NAME"], ["a-long-name"]])).toBe("NAME\na-long-name\n");
  });
});

describe("registerCommand", () => {
  /** The pin computed here: sha256 over the certificate's SubjectPublicKeyInfo DER. */
  const pin = (pem: string) =>
    `sha256:${createHash("sha256")
      .update(new X509Certificate(pem).publicKey.export({ type: "spki", format: "der" }))
      .digest("hex")}`;

  it("prints the endpoint without https://, the token and the CA's pin", async () => {
    const ca = await createCertificateAuthority({ commonName: "karmada" });
    expect(registerCommand("https://172.18.0.2:5443", ca.certPem, "abcdef.0123456789abcdef")).toBe(
      `karmadactl register 172.18.0.2:5443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash ${pin(ca.certPem)}`,
    );
    expect(pin(ca.certPem)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("pins every certificate of a CA bundle, comma-separated", async () => {
    const a = await createCertificateAuthority({ commonName: "a" });
    const b = await createCertificateAuthority({ commonName: "b" });
    expect(registerCommand("https://karmada.example:443", `${a.certPem}${b.certPem}`, "t")).toBe(
      `karmadactl register karmada.example:443 --token t --discovery-token-ca-cert-hash ${pin(a.certPem)},${pin(b.certPem)}`,
    );
  });

  it("removes every https:// and keeps other schemes", async () => {
    const ca = await createCertificateAuthority({ commonName: "karmada" });
    const hash = pin(ca.certPem);
    expect(registerCommand("http://10.0.0.1:8080", ca.certPem, "t")).toBe(
      `karmadactl register http://10.0.0.1:8080 --token t --discovery-token-ca-cert-hash ${hash}`,
    );
    expect(registerCommand("https://h/https://", ca.certPem, "t")).toBe(
      `karmadactl register h/ --token t --discovery-token-ca-cert-hash ${hash}`,
    );
  });
});

describe("generateBootstrapToken", () => {
  it("makes <6 of [a-z0-9]>.<16 of [a-z0-9]> tokens", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const token = generateBootstrapToken();
      expect(token).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}$/);
      expect(TOKEN_PATTERN.test(token)).toBe(true);
      seen.add(token);
    }
    expect(seen.size).toBe(200);
  });

  it("uses digits and letters", () => {
    const chars = new Set<string>();
    for (let i = 0; i < 200; i++) for (const c of generateBootstrapToken().replace(".", "")) chars.add(c);
    expect([...chars].some((c) => /[0-9]/.test(c))).toBe(true);
    expect([...chars].some((c) => /[a-z]/.test(c))).toBe(true);
  });
});

describe("Go's truncation and tabwriter in token list", () => {
  it("a TTL between -1 s and -2 s is 0s, as Go's integer division makes it", () => {
    expect(shortHumanDuration(-1500)).toBe("0s");
    expect(shortHumanDuration(-2500)).toBe("<invalid>");
  });

  it("a column is at least six wide (tabwriter's minimum width)", () => {
    expect(
      renderTable([
        ["A", "B"],
        ["x", "y"],
      ]),
    ).toBe("A     B\nx     y\n");
  });
});
