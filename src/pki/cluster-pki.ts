/**
 * The certificates and keys one cluster's API server needs, as `karmadactl init` and kubeadm
 * lay them out: a CA (`ca.crt`, `ca.key`; the user's own when given), a serving certificate
 * for the places clients reach it (`apiserver.crt`, `apiserver.key`), an administrator's
 * client certificate (`O=system:masters`), the service-account signing key (`sa.key`,
 * `sa.pub`), and client certificates for named components. Kept in a directory so a restart
 * serves with the same CA (and the tokens signed before stay valid); made in memory when no
 * directory is given.
 */
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import {
  type CertificateAndKey,
  type CertificateUsage,
  certificateInfo,
  createCertificateAuthority,
  generateKeyPem,
  issueCertificate,
  pemBlocks,
  publicKeyPemOf,
} from "./x509.ts";

export const ADMIN_USER = "system:admin";
export const MASTERS = "system:masters";

/** Where clients reach a local server: loopback by address and name, and this host's name. */
export function localHosts(): string[] {
  return [...new Set(["127.0.0.1", "::1", "localhost", hostname()])];
}

export interface ClusterPki {
  ca: CertificateAndKey;
  serving: CertificateAndKey;
  admin: CertificateAndKey;
  serviceAccountKeyPem: string;
}

export interface ClientIdentity {
  /** File base name (`<name>.crt`, `<name>.key`). */
  name: string;
  commonName: string;
  organizations?: string[];
}

export interface PkiOptions {
  /** The CA's common name (e.g. `karmada`, or a member's name). */
  caName: string;
  /** Extra host names and addresses for the serving certificate (loopback and this host are always in). */
  hosts?: readonly string[];
  /** The user's own CA instead of a new one (`--ca-cert-file`/`--ca-key-file`). */
  ca?: CertificateAndKey;
  now?: Date;
}

const LEAF_VALIDITY_MS = 365 * 86_400_000;

async function leaf(
  ca: CertificateAndKey,
  req: {
    commonName: string;
    organizations?: readonly string[];
    hosts?: readonly string[];
    usage: CertificateUsage;
  },
  now: Date,
): Promise<CertificateAndKey> {
  return issueCertificate(ca, {
    ...req,
    notBefore: new Date(now.getTime() - 5 * 60_000),
    notAfter: new Date(now.getTime() + LEAF_VALIDITY_MS),
  });
}

/** A fresh PKI in memory. */
export async function createClusterPki(opts: PkiOptions): Promise<ClusterPki> {
  const now = opts.now ?? new Date();
  const ca = opts.ca ?? (await createCertificateAuthority({ commonName: opts.caName, now }));
  const hosts = [...new Set([...localHosts(), ...(opts.hosts ?? [])])];
  return {
    ca,
    serving: await leaf(ca, { commonName: `${opts.caName}-apiserver`, hosts, usage: "server" }, now),
    admin: await leaf(ca, { commonName: ADMIN_USER, organizations: [MASTERS], usage: "client" }, now),
    serviceAccountKeyPem: generateKeyPem(),
  };
}

/** A client certificate signed by the PKI's CA. */
export function issueClientCertificate(
  pki: Pick<ClusterPki, "ca">,
  id: Omit<ClientIdentity, "name">,
  now = new Date(),
): Promise<CertificateAndKey> {
  return leaf(
    pki.ca,
    {
      commonName: id.commonName,
      ...(id.organizations ? { organizations: id.organizations } : {}),
      usage: "client",
    },
    now,
  );
}

async function readPair(dir: string, base: string): Promise<CertificateAndKey | undefined> {
  const cert = join(dir, `${base}.crt`);
  const key = join(dir, `${base}.key`);
  if (!existsSync(cert) || !existsSync(key)) return undefined;
  return { certPem: await readFile(cert, "utf8"), keyPem: await readFile(key, "utf8") };
}

async function writePair(dir: string, base: string, pair: CertificateAndKey): Promise<void> {
  await writeFile(join(dir, `${base}.crt`), pair.certPem, { mode: 0o644 });
  await writeFile(join(dir, `${base}.key`), pair.keyPem, { mode: 0o600 });
}

/** A certificate that is missing, expired or expiring within a day is made again. */
function fresh(pair: CertificateAndKey | undefined, now: Date): pair is CertificateAndKey {
  if (!pair) return false;
  return certificateInfo(pair.certPem).notAfter.getTime() > now.getTime() + 86_400_000;
}

/** Whether a serving certificate names every host wanted. */
function covers(pair: CertificateAndKey, hosts: readonly string[]): boolean {
  const info = certificateInfo(pair.certPem);
  const names = new Set([...info.dnsNames, ...info.ipAddresses]);
  return hosts.every((h) => names.has(h));
}

/**
 * A certificate signed by `ca`, kept in `dir` as `<name>.crt`/`<name>.key`: made when missing,
 * about to expire, or not covering every host wanted (e.g. an etcd member's certificate).
 */
export async function loadOrCreateIssued(
  dir: string,
  ca: CertificateAndKey,
  req: ClientIdentity & { hosts?: readonly string[]; usage: CertificateUsage },
  now = new Date(),
): Promise<CertificateAndKey> {
  const existing = await readPair(dir, req.name);
  if (fresh(existing, now) && covers(existing, req.hosts ?? [])) return existing;
  const { name, ...request } = req;
  const made = await leaf(ca, request, now);
  await writePair(dir, name, made);
  return made;
}

/**
 * The PKI kept in `dir`: what is there is used (a serving certificate is made again when it
 * does not cover every host, or is about to expire), what is missing is made and written.
 * A CA given in `opts.ca` is stored when there is none yet, and must be the stored one otherwise.
 */
export async function loadOrCreateClusterPki(
  dir: string,
  opts: PkiOptions & { clients?: readonly ClientIdentity[] },
): Promise<ClusterPki & { clients: Record<string, CertificateAndKey> }> {
  const now = opts.now ?? new Date();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  let ca = await readPair(dir, "ca");
  if (ca && opts.ca && ca.certPem.trim() !== opts.ca.certPem.trim()) {
    throw new Error(
      `${join(dir, "ca.crt")} holds another CA than the one given; a CA cannot be swapped under a running fleet (start in a new directory)`,
    );
  }
  if (!ca) {
    ca = opts.ca ?? (await createCertificateAuthority({ commonName: opts.caName, now }));
    await writePair(dir, "ca", ca);
  }
  const hosts = [...new Set([...localHosts(), ...(opts.hosts ?? [])])];
  let serving = await readPair(dir, "apiserver");
  if (!fresh(serving, now) || !covers(serving, hosts)) {
    serving = await leaf(ca, { commonName: `${opts.caName}-apiserver`, hosts, usage: "server" }, now);
    await writePair(dir, "apiserver", serving);
  }
  const client = (id: ClientIdentity): Promise<CertificateAndKey> =>
    loadOrCreateIssued(dir, ca!, { ...id, usage: "client" }, now);
  const admin = await client({ name: "admin", commonName: ADMIN_USER, organizations: [MASTERS] });
  const clients: Record<string, CertificateAndKey> = {};
  for (const id of opts.clients ?? []) clients[id.name] = await client(id);
  const serviceAccountKeyPem = await loadOrCreateKey(dir, "sa.key");
  const saPub = join(dir, "sa.pub");
  if (!existsSync(saPub)) await writeFile(saPub, publicKeyPemOf(serviceAccountKeyPem), { mode: 0o644 });
  return { ca, serving, admin, serviceAccountKeyPem, clients };
}

/**
 * kube-apiserver's self-signed serving certificate: with no `--tls-cert-file`, a CA and a
 * certificate for `hosts` are made once and kept in `dir` (`apiserver.crt` holds the
 * certificate followed by its CA, `apiserver.key` the key); later starts reuse them.
 */
export async function loadOrCreateSelfSignedServing(
  dir: string,
  hosts: readonly string[],
  now = new Date(),
): Promise<{ certPem: string; keyPem: string; caPem: string }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const existing = await readPair(dir, "apiserver");
  if (existing && fresh(existing, now)) {
    const blocks = pemBlocks(existing.certPem);
    return { ...existing, caPem: blocks[blocks.length - 1] ?? existing.certPem };
  }
  const ca = await createCertificateAuthority({
    commonName: `${hostname()}-ca@${Math.floor(now.getTime() / 1000)}`,
    now,
  });
  const serving = await leaf(
    ca,
    {
      commonName: `${hostname()}@${Math.floor(now.getTime() / 1000)}`,
      hosts: [...new Set([...localHosts(), ...hosts])],
      usage: "server",
    },
    now,
  );
  const pair = { certPem: serving.certPem + ca.certPem, keyPem: serving.keyPem };
  await writePair(dir, "apiserver", pair);
  return { ...pair, caPem: ca.certPem };
}

/** A key kept in `dir/<name>` (made on first use), e.g. the service-account signing key. */
export async function loadOrCreateKey(dir: string, name: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, name);
  if (existsSync(path)) return readFile(path, "utf8");
  const key = generateKeyPem();
  await writeFile(path, key, { mode: 0o600 });
  return key;
}
