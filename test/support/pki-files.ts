/**
 * Certificates and keys written to files for tests and trials that run `karmada apiserver` and
 * etcd as processes, with TLS as a real deployment has it, and the flags that read them.
 */
import { writeFile } from "node:fs/promises";
import { type ClusterPki, createClusterPki } from "../../src/pki/cluster-pki.ts";
import { issueCertificate } from "../../src/pki/x509.ts";
import type { LocalEtcdOptions } from "../../src/storage/etcd/local-etcd.ts";

export interface EtcdTlsFiles {
  tls: NonNullable<LocalEtcdOptions["tls"]>;
  /** `--etcd-servers` (https) and the client certificate flags of the API server. */
  apiserverFlags(endpoints: readonly string[]): string[];
}

/**
 * An etcd CA with a serving and a client certificate: the `tls` option of startLocalEtcd /
 * startLocalEtcdCluster, and the API server's flags to reach it.
 */
export async function writeEtcdTls(
  file: (name: string) => string,
  validForMs = 86_400_000,
): Promise<EtcdTlsFiles> {
  const pki = await createClusterPki({ caName: "etcd-ca" });
  const serving = await issueCertificate(pki.ca, {
    commonName: "etcd",
    hosts: ["127.0.0.1", "localhost"],
    usage: "server+client",
    notAfter: new Date(Date.now() + validForMs),
  });
  const files: Record<string, string> = {
    "etcd-ca.crt": pki.ca.certPem,
    "etcd-server.crt": serving.certPem,
    "etcd-server.key": serving.keyPem,
    "etcd-client.crt": pki.admin.certPem,
    "etcd-client.key": pki.admin.keyPem,
  };
  for (const [name, content] of Object.entries(files)) await writeFile(file(name), content, { mode: 0o600 });
  return {
    tls: {
      caFile: file("etcd-ca.crt"),
      certFile: file("etcd-server.crt"),
      keyFile: file("etcd-server.key"),
      clientCertFile: file("etcd-client.crt"),
      clientKeyFile: file("etcd-client.key"),
    },
    apiserverFlags: (endpoints) => [
      `--etcd-servers=${endpoints.map((e) => `https://${e}`).join(",")}`,
      `--etcd-cafile=${file("etcd-ca.crt")}`,
      `--etcd-certfile=${file("etcd-client.crt")}`,
      `--etcd-keyfile=${file("etcd-client.key")}`,
    ],
  };
}

export interface ApiserverPkiFiles {
  pki: ClusterPki;
  /** Serving with the certificate, trusting the CA for clients, signing tokens with the key. */
  servingFlags(certDir: string): string[];
  /** Signing CSRs with the CA (`--cluster-signing-*`). */
  signingFlags: string[];
}

/** The control plane's CA (and its key), serving certificate and service-account key. */
export async function writeApiserverPki(file: (name: string) => string): Promise<ApiserverPkiFiles> {
  const pki = await createClusterPki({ caName: "karmada" });
  const files: Record<string, string> = {
    "ca.crt": pki.ca.certPem,
    "ca.key": pki.ca.keyPem,
    "apiserver.crt": pki.serving.certPem + pki.ca.certPem,
    "apiserver.key": pki.serving.keyPem,
    "sa.key": pki.serviceAccountKeyPem,
  };
  for (const [name, content] of Object.entries(files)) await writeFile(file(name), content, { mode: 0o600 });
  return {
    pki,
    servingFlags: (certDir) => [
      `--cert-dir=${certDir}`,
      `--tls-cert-file=${file("apiserver.crt")}`,
      `--tls-private-key-file=${file("apiserver.key")}`,
      `--client-ca-file=${file("ca.crt")}`,
      `--service-account-signing-key-file=${file("sa.key")}`,
    ],
    signingFlags: [
      `--cluster-signing-cert-file=${file("ca.crt")}`,
      `--cluster-signing-key-file=${file("ca.key")}`,
    ],
  };
}
