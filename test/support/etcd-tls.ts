/**
 * An etcd CA with a serving and a client certificate, written where `file` says, for tests and
 * trials that run etcd with TLS as a real deployment does: the `tls` option of
 * startLocalEtcd / startLocalEtcdCluster, and the API server's flags to reach it.
 */
import { writeFile } from "node:fs/promises";
import { createClusterPki } from "../../src/pki/cluster-pki.ts";
import { issueCertificate } from "../../src/pki/x509.ts";
import type { LocalEtcdOptions } from "../../src/storage/etcd/local-etcd.ts";

export interface EtcdTlsFiles {
  tls: NonNullable<LocalEtcdOptions["tls"]>;
  /** `--etcd-servers` (https) and the client certificate flags of the API server. */
  apiserverFlags(endpoints: readonly string[]): string[];
}

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
