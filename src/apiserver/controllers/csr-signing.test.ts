import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../api/meta.ts";
import { createCertificateAuthority, issueCertificate } from "../../pki/x509.ts";
import { clientUsageProblem, shouldClean } from "./csr-signing.ts";

describe("clientUsageProblem", () => {
  const cases: Array<{ usages: string[]; want: string | undefined }> = [
    { usages: ["digital signature", "key encipherment", "client auth"], want: undefined },
    { usages: ["client auth", "digital signature"], want: undefined },
    { usages: ["client auth"], want: undefined },
    { usages: ["client auth", "client auth"], want: undefined },
    {
      usages: ["digital signature", "key encipherment"],
      want: "missing required usage for client certificate: client auth",
    },
    { usages: [], want: "missing required usage for client certificate: client auth" },
    {
      usages: ["digital signature", "server auth", "client auth"],
      want: "invalid usage for client certificate: server auth",
    },
    {
      usages: ["client auth", "cert sign", "code signing"],
      want: "invalid usage for client certificate: cert sign",
    },
    // A bad usage is reported before a missing client auth.
    { usages: ["signing"], want: "invalid usage for client certificate: signing" },
  ];
  it.each(cases)("$usages", ({ usages, want }) => {
    expect(clientUsageProblem(usages)).toBe(want);
  });
});

describe("shouldClean", () => {
  const NOW = Date.UTC(2030, 2, 1, 12, 0, 0);
  const HOUR = 3_600_000;
  const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

  function csr(
    conditions: Array<{ type: string; lastUpdateTime?: string }>,
    more: { created?: number; certificate?: string } = {},
  ): StoredObject {
    return {
      apiVersion: "certificates.k8s.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { name: "csr-1", uid: "uid-csr-1", creationTimestamp: at(more.created ?? NOW - 48 * HOUR) },
      spec: { signerName: "kubernetes.io/kube-apiserver-client", usages: ["client auth"] },
      status: {
        conditions: conditions.map((c) => ({ status: "True", ...c })),
        ...(more.certificate ? { certificate: more.certificate } : {}),
      },
    };
  }

  // The issued certificate's content does not matter until it expires: any base64 PEM.
  const issued = Buffer.from("-----BEGIN CERTIFICATE-----\nnot parsed\n-----END CERTIFICATE-----\n").toString(
    "base64",
  );

  const cases: Array<{ name: string; obj: StoredObject; want: boolean }> = [
    {
      name: "approved and issued, updated over an hour ago",
      obj: csr([{ type: "Approved", lastUpdateTime: at(NOW - HOUR - 1000) }], { certificate: issued }),
      want: true,
    },
    {
      name: "approved and issued, updated under an hour ago",
      obj: csr([{ type: "Approved", lastUpdateTime: at(NOW - HOUR + 1000) }], { certificate: issued }),
      want: false,
    },
    {
      name: "approved, not issued, updated long ago",
      obj: csr([{ type: "Approved", lastUpdateTime: at(NOW - 10 * HOUR) }]),
      want: false,
    },
    {
      name: "approved and issued, no lastUpdateTime",
      obj: csr([{ type: "Approved" }], { certificate: issued }),
      want: false,
    },
    {
      name: "denied over an hour ago",
      obj: csr([{ type: "Denied", lastUpdateTime: at(NOW - HOUR - 1000) }]),
      want: true,
    },
    {
      name: "denied under an hour ago",
      obj: csr([{ type: "Denied", lastUpdateTime: at(NOW - 30 * 60_000) }]),
      want: false,
    },
    {
      name: "failed over an hour ago",
      obj: csr([
        { type: "Approved", lastUpdateTime: at(NOW - 2 * HOUR) },
        { type: "Failed", lastUpdateTime: at(NOW - 2 * HOUR) },
      ]),
      want: true,
    },
    {
      name: "failed under an hour ago",
      obj: csr([{ type: "Failed", lastUpdateTime: at(NOW - 59 * 60_000) }]),
      want: false,
    },
    { name: "pending for over a day", obj: csr([], { created: NOW - 24 * HOUR - 1000 }), want: true },
    { name: "pending for under a day", obj: csr([], { created: NOW - 23 * HOUR }), want: false },
    {
      name: "a condition that is not a decision is not pending, and not cleaned",
      obj: csr([{ type: "Custom", lastUpdateTime: at(NOW - 48 * HOUR) }], { created: NOW - 48 * HOUR }),
      want: false,
    },
    {
      name: "no status at all, created long ago",
      obj: {
        apiVersion: "certificates.k8s.io/v1",
        kind: "CertificateSigningRequest",
        metadata: { name: "x", uid: "uid-x", creationTimestamp: at(NOW - 25 * HOUR) },
      },
      want: true,
    },
    {
      name: "no creationTimestamp",
      obj: {
        apiVersion: "certificates.k8s.io/v1",
        kind: "CertificateSigningRequest",
        metadata: { name: "x", uid: "uid-x" },
      },
      want: false,
    },
  ];
  it.each(cases)("$name: $want", ({ obj, want }) => {
    expect(shouldClean(obj, NOW)).toBe(want);
  });

  it("an approved request whose certificate has expired, however recent", async () => {
    const ca = await createCertificateAuthority({ commonName: "ca", now: new Date(NOW - 10 * HOUR) });
    const notAfter = NOW - HOUR / 2;
    const cert = await issueCertificate(ca, {
      commonName: "system:karmada:agent:member1",
      usage: "client",
      notBefore: new Date(NOW - 2 * HOUR),
      notAfter: new Date(notAfter),
    });
    const obj = csr([{ type: "Approved", lastUpdateTime: at(NOW - 60_000) }], {
      certificate: Buffer.from(cert.certPem).toString("base64"),
    });
    expect(shouldClean(obj, NOW)).toBe(true);
    expect(shouldClean(obj, notAfter - 1000)).toBe(false);
  });
});
