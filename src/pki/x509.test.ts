import { X509Certificate } from "node:crypto";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { describe, expect, it } from "vitest";
import {
  certificateInfo,
  createCertificateAuthority,
  createCertificateRequest,
  generateKeyPem,
  issueCertificate,
  parseCertificateRequest,
  pemBlocks,
  publicKeyPemOf,
  publicKeyPin,
} from "./x509.ts";

const inAYear = () => new Date(Date.now() + 365 * 86_400_000);

describe("x509", () => {
  it("makes a CA that signs server and client certificates Node's TLS accepts", async () => {
    const ca = await createCertificateAuthority({ commonName: "karmada" });
    const serving = await issueCertificate(ca, {
      commonName: "karmada-apiserver",
      hosts: ["localhost", "127.0.0.1", "::1"],
      usage: "server",
      notAfter: inAYear(),
    });
    const client = await issueCertificate(ca, {
      commonName: "system:admin",
      organizations: ["system:masters", "extra"],
      usage: "client",
      notAfter: inAYear(),
    });
    expect(certificateInfo(ca.certPem)).toMatchObject({ commonName: "karmada", isCa: true });
    expect(certificateInfo(serving.certPem)).toMatchObject({
      commonName: "karmada-apiserver",
      issuerCommonName: "karmada",
      isCa: false,
      dnsNames: ["localhost"],
      ipAddresses: ["127.0.0.1", "::1"],
    });
    expect(new X509Certificate(serving.certPem).checkIssued(new X509Certificate(ca.certPem))).toBe(true);

    const server = https.createServer(
      {
        cert: serving.certPem,
        key: serving.keyPem,
        ca: ca.certPem,
        requestCert: true,
        rejectUnauthorized: false,
      },
      (req, res) => {
        const socket = req.socket as TLSSocket;
        const peer = socket.getPeerCertificate();
        res.end(JSON.stringify({ authorized: socket.authorized, cn: peer.subject?.CN, o: peer.subject?.O }));
      },
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      const body = await new Promise<string>((resolve, reject) => {
        https
          .get(
            { host: "127.0.0.1", port, path: "/", ca: ca.certPem, cert: client.certPem, key: client.keyPem },
            (res) => {
              let out = "";
              res.on("data", (d) => {
                out += d;
              });
              res.on("end", () => resolve(out));
            },
          )
          .on("error", reject);
      });
      expect(JSON.parse(body)).toEqual({
        authorized: true,
        cn: "system:admin",
        o: ["system:masters", "extra"],
      });
    } finally {
      server.close();
    }
  });

  it("signs a certificate request with the requester's key, and pins a CA by its public key", async () => {
    const ca = await createCertificateAuthority({ commonName: "karmada" });
    const key = generateKeyPem();
    const csrPem = await createCertificateRequest(key, {
      commonName: "system:karmada:agent:member1",
      organizations: ["system:karmada:agents"],
    });
    const csr = await parseCertificateRequest(csrPem);
    expect(csr).toMatchObject({
      commonName: "system:karmada:agent:member1",
      organizations: ["system:karmada:agents"],
      signatureValid: true,
    });
    expect(csr.publicKeyPem).toBe(publicKeyPemOf(key));
    const issued = await issueCertificate(ca, {
      commonName: csr.commonName,
      organizations: csr.organizations,
      usage: "client",
      publicKeyPem: csr.publicKeyPem,
      notAfter: inAYear(),
    });
    expect(issued.keyPem).toBe("");
    expect(
      new X509Certificate(issued.certPem).checkPrivateKey(
        await import("node:crypto").then((c) => c.createPrivateKey(key)),
      ),
    ).toBe(true);
    expect(publicKeyPin(ca.certPem)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(publicKeyPin(ca.certPem)).toBe(publicKeyPin(`${ca.certPem}${issued.certPem}`));
    expect(pemBlocks(`${ca.certPem}${issued.certPem}`)).toHaveLength(2);
  });

  it("gives a signed request exactly the key usages it asked for, as Kubernetes' signer does", async () => {
    const ca = await createCertificateAuthority({ commonName: "karmada" });
    const requested = await issueCertificate(ca, {
      commonName: "system:karmada:agent:member1",
      usage: "client",
      kubernetesUsages: ["digital signature", "client auth"],
      notAfter: inAYear(),
    });
    const cert = new x509.X509Certificate(requested.certPem);
    expect(cert.getExtension(x509.KeyUsagesExtension)?.usages).toBe(x509.KeyUsageFlags.digitalSignature);
    expect(cert.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual([
      x509.ExtendedKeyUsage.clientAuth,
    ]);

    const ours = new x509.X509Certificate(
      (await issueCertificate(ca, { commonName: "a", usage: "client", notAfter: inAYear() })).certPem,
    );
    expect(ours.getExtension(x509.KeyUsagesExtension)?.usages).toBe(
      x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
    );

    const named = new x509.X509Certificate(
      (
        await issueCertificate(ca, {
          commonName: "a",
          usage: "client",
          hosts: ["a.example", "10.0.0.1"],
          emailAddresses: ["a@example.com"],
          uris: ["spiffe://example/a"],
          notAfter: inAYear(),
        })
      ).certPem,
    );
    expect(named.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON()).toEqual([
      { type: "dns", value: "a.example" },
      { type: "ip", value: "10.0.0.1" },
      { type: "email", value: "a@example.com" },
      { type: "url", value: "spiffe://example/a" },
    ]);

    await expect(
      issueCertificate(ca, {
        commonName: "a",
        usage: "client",
        kubernetesUsages: ["client auth", "flying"],
        notAfter: inAYear(),
      }),
    ).rejects.toThrow('unrecognized usage values: ["flying"]');
  });

  it("refuses what is not a certificate request", async () => {
    await expect(parseCertificateRequest("hello")).rejects.toThrow("CERTIFICATE REQUEST");
  });
});
