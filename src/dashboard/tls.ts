/**
 * The serving certificate of a dashboard reachable beyond loopback when none is given: a CA
 * and a certificate for the bind address and this host's names, made at start in memory (as
 * kube-apiserver's self-signed one, but not kept: the browser is told its fingerprint).
 */
import { X509Certificate } from "node:crypto";
import { localHosts } from "../pki/cluster-pki.ts";
import { createCertificateAuthority, issueCertificate } from "../pki/x509.ts";

export interface ServingCertificate {
  certPem: string;
  keyPem: string;
  /** The CA that signed it, for clients that want to trust it. */
  caPem: string;
  /** SHA-256 fingerprint of the serving certificate, as browsers show it. */
  fingerprint: string;
}

export async function selfSignedServing(bindAddress: string, now = new Date()): Promise<ServingCertificate> {
  const wildcard = bindAddress === "0.0.0.0" || bindAddress === "::" || bindAddress === "";
  const hosts = [...new Set([...localHosts(), ...(wildcard ? [] : [bindAddress])])];
  const ca = await createCertificateAuthority({
    commonName: `karmada-dashboard-ca@${Math.floor(now.getTime() / 1000)}`,
    now,
    validityMs: 365 * 86_400_000,
  });
  const serving = await issueCertificate(ca, {
    commonName: "karmada-dashboard",
    hosts,
    usage: "server",
    notBefore: new Date(now.getTime() - 5 * 60_000),
    notAfter: new Date(now.getTime() + 365 * 86_400_000),
  });
  return {
    certPem: serving.certPem + ca.certPem,
    keyPem: serving.keyPem,
    caPem: ca.certPem,
    fingerprint: new X509Certificate(serving.certPem).fingerprint256,
  };
}
