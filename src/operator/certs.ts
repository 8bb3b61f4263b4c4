/**
 * The certificates of one instance, as karmada-operator makes them: a CA (the user's
 * `customCertificate.apiServerCACert` when given, else a new `karmada` CA), the API server's
 * serving certificate and the `karmada` admin pair (also the service-account key) for the
 * SAN set clients reach it by, and for a local etcd its own CA, server and client pairs.
 * Leaf validity is `leafCertValidityDays` (a year by default).
 */
import { type CertificateAndKey, createCertificateAuthority, issueCertificate } from "../pki/x509.ts";
import type { KarmadaSpec } from "./karmada.ts";
import { instanceNames } from "./karmada.ts";

export type Pairs = Record<string, CertificateAndKey>;

/** Upstream's apiserver SAN set: the in-cluster names, the instance namespace's wildcards, certSANs, the NodePort node. */
export function apiServerSans(namespace: string, spec: KarmadaSpec, nodeIp?: string): string[] {
  const sans = [
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "*.karmada-system.svc.cluster.local",
    "*.karmada-system.svc",
    "127.0.0.1",
  ];
  if (namespace !== "karmada-system") sans.push(`*.${namespace}.svc.cluster.local`, `*.${namespace}.svc`);
  sans.push(...(spec.components?.karmadaAPIServer?.certSANs ?? []));
  if (nodeIp) sans.push(nodeIp);
  return [...new Set(sans)];
}

export async function instanceCertificates(opts: {
  name: string;
  namespace: string;
  spec: KarmadaSpec;
  customCa?: CertificateAndKey;
  nodeIp?: string;
  now?: Date;
}): Promise<Pairs> {
  const now = opts.now ?? new Date();
  const days = opts.spec.customCertificate?.leafCertValidityDays ?? 365;
  const validity = {
    notBefore: new Date(now.getTime() - 5 * 60_000),
    notAfter: new Date(now.getTime() + days * 86_400_000),
  };
  const ca = opts.customCa ?? (await createCertificateAuthority({ commonName: "karmada", now }));
  const hosts = apiServerSans(opts.namespace, opts.spec, opts.nodeIp);
  const pairs: Pairs = {
    ca,
    apiserver: await issueCertificate(ca, {
      commonName: "karmada-apiserver",
      hosts,
      usage: "server",
      ...validity,
    }),
    karmada: await issueCertificate(ca, {
      commonName: "system:admin",
      organizations: ["system:masters"],
      hosts,
      usage: "server+client",
      ...validity,
    }),
  };
  if (opts.spec.components?.etcd?.local) {
    const names = instanceNames(opts.name);
    const etcdCa = await createCertificateAuthority({ commonName: "karmada-etcd-ca", now });
    pairs["etcd-ca"] = etcdCa;
    pairs["etcd-server"] = await issueCertificate(etcdCa, {
      commonName: "karmada-etcd-server",
      hosts: [
        "localhost",
        `${names.etcdClient}.${opts.namespace}.svc.cluster.local`,
        `*.${names.etcd}.${opts.namespace}.svc.cluster.local`,
        "127.0.0.1",
        ...(opts.spec.components.etcd.local.serverCertSANs ?? []),
      ],
      usage: "server+client",
      ...validity,
    });
    pairs["etcd-client"] = await issueCertificate(etcdCa, {
      commonName: "karmada-etcd-client",
      usage: "server+client",
      ...validity,
    });
  }
  return pairs;
}

/** Secret data (base64) of pairs as `<pair>.crt` / `<pair>.key`. */
export function pairsData(pairs: Pairs, only?: readonly string[]): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [name, pair] of Object.entries(pairs)) {
    if (only && !only.includes(name)) continue;
    data[`${name}.crt`] = Buffer.from(pair.certPem).toString("base64");
    data[`${name}.key`] = Buffer.from(pair.keyPem).toString("base64");
  }
  return data;
}

/** The pairs stored in a Secret's data (what an earlier reconcile wrote). */
export function pairsFromData(data: Record<string, string> | undefined): Pairs {
  const pairs: Pairs = {};
  for (const [key, value] of Object.entries(data ?? {})) {
    const m = /^(.+)\.crt$/.exec(key);
    const keyData = m ? data?.[`${m[1]}.key`] : undefined;
    if (m && keyData)
      pairs[m[1]!] = {
        certPem: Buffer.from(value, "base64").toString("utf8"),
        keyPem: Buffer.from(keyData, "base64").toString("utf8"),
      };
  }
  return pairs;
}
