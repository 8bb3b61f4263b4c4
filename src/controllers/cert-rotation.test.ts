import { describe, expect, it } from "vitest";
import { createCertificateAuthority, issueCertificate } from "../pki/x509.ts";
import { needsRotation } from "./cert-rotation.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2030, 0, 1);

// A CA valid for 50 days from T0 (backdated 5 minutes), and a leaf valid for 100 days from T0.
const ca = await createCertificateAuthority({
  commonName: "karmada",
  now: new Date(T0),
  validityMs: 50 * DAY,
});
const leaf = await issueCertificate(ca, {
  commonName: "system:karmada:agent:member1",
  organizations: ["system:karmada:agents"],
  usage: "client",
  notBefore: new Date(T0),
  notAfter: new Date(T0 + 100 * DAY),
});

describe("needsRotation", () => {
  const cases: Array<{ name: string; pem: string; now: number; threshold: number; want: boolean }> = [
    { name: "fresh", pem: leaf.certPem, now: T0, threshold: 0.2, want: false },
    { name: "21% left", pem: leaf.certPem, now: T0 + 79 * DAY, threshold: 0.2, want: false },
    { name: "exactly 20% left", pem: leaf.certPem, now: T0 + 80 * DAY, threshold: 0.2, want: true },
    { name: "19% left", pem: leaf.certPem, now: T0 + 81 * DAY, threshold: 0.2, want: true },
    { name: "expired", pem: leaf.certPem, now: T0 + 101 * DAY, threshold: 0.2, want: true },
    {
      name: "threshold 0: only once expired",
      pem: leaf.certPem,
      now: T0 + 99 * DAY,
      threshold: 0,
      want: false,
    },
    { name: "threshold 0 at expiry", pem: leaf.certPem, now: T0 + 100 * DAY, threshold: 0, want: true },
    { name: "threshold 1: always", pem: leaf.certPem, now: T0, threshold: 1, want: true },
    // In a bundle, the latest notBefore (the leaf's T0) and the earliest notAfter (the CA's T0+50d) count.
    {
      name: "bundle, 22% of 50 days left",
      pem: leaf.certPem + ca.certPem,
      now: T0 + 39 * DAY,
      threshold: 0.2,
      want: false,
    },
    {
      name: "bundle, 20% of 50 days left",
      pem: leaf.certPem + ca.certPem,
      now: T0 + 40 * DAY,
      threshold: 0.2,
      want: true,
    },
    {
      name: "bundle in the other order",
      pem: ca.certPem + leaf.certPem,
      now: T0 + 40 * DAY,
      threshold: 0.2,
      want: true,
    },
    {
      name: "leaf alone at the same time: 60% left",
      pem: leaf.certPem,
      now: T0 + 40 * DAY,
      threshold: 0.2,
      want: false,
    },
  ];
  it.each(cases)("$name", ({ pem, now, threshold, want }) => {
    expect(needsRotation(pem, now, threshold)).toBe(want);
  });

  it("refuses input without a certificate", () => {
    expect(() => needsRotation("", T0, 0.2)).toThrow("no cert found in certificate");
    expect(() => needsRotation(leaf.keyPem, T0, 0.2)).toThrow("no cert found in certificate");
  });
});
