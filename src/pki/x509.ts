/**
 * Certificates, keys and certificate requests: what `karmada up`, the API server's
 * self-signed serving certificate, the CSR signer and `karmadactl register` need. X.509 and
 * PKCS#10 encoding come from @peculiar/x509 over Node's WebCrypto; key parsing and the
 * fingerprints from node:crypto. Keys we make are ECDSA P-256 (fast to make, accepted by Go,
 * OpenSSL and Node clients alike); keys we are given may be RSA or ECDSA.
 */
import "reflect-metadata";
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  X509Certificate as NodeX509Certificate,
  randomBytes,
  webcrypto,
} from "node:crypto";
import { isIP } from "node:net";
import * as x509 from "@peculiar/x509";

type CryptoKey = webcrypto.CryptoKey;
type Algorithm = webcrypto.Algorithm;

// The library names the DOM `Crypto` type; Node's WebCrypto is that object.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[1]);

/** A certificate and its private key, both PEM. */
export interface CertificateAndKey {
  certPem: string;
  keyPem: string;
}

/** What a certificate is for: TLS server, TLS client, or both. */
export type CertificateUsage = "server" | "client" | "server+client";

export interface CertificateRequest {
  commonName: string;
  organizations?: readonly string[];
  /** Subject alternative names: host names, and IP addresses (v4 or v6). */
  hosts?: readonly string[];
  /** Further subject alternative names a signed request carries over. */
  emailAddresses?: readonly string[];
  uris?: readonly string[];
  usage: CertificateUsage;
  /**
   * A CSR's `spec.usages` (Kubernetes names: "digital signature", "client auth", ...); when
   * given, they decide the key usage bits and extended key usages instead of `usage`.
   */
  kubernetesUsages?: readonly string[];
  /** The certified key's public half (PEM); without it a new key is made and returned. */
  publicKeyPem?: string;
  notBefore?: Date;
  notAfter: Date;
}

export interface CertificateInfo {
  commonName: string;
  organizations: string[];
  issuerCommonName: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  isCa: boolean;
  dnsNames: string[];
  ipAddresses: string[];
}

export interface CsrInfo {
  commonName: string;
  organizations: string[];
  publicKeyPem: string;
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  /** The request's self-signature checks out against its own key. */
  signatureValid: boolean;
}

/** Certificates are backdated this much, so a client whose clock is a little behind accepts them. */
const BACKDATE_MS = 5 * 60_000;

/** A new private key (ECDSA P-256), PKCS#8 PEM. */
export function generateKeyPem(): string {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return privateKey.export({ type: "pkcs8", format: "pem" }).toString();
}

/** The public half of a private key (any PEM form Node reads: PKCS#8, SEC1, PKCS#1), SPKI PEM. */
export function publicKeyPemOf(keyPem: string): string {
  return createPublicKey(createPrivateKey(keyPem)).export({ type: "spki", format: "pem" }).toString();
}

/** The WebCrypto signing algorithm matching a key's type. */
function signingAlgorithmOf(keyPem: string): { name: string; hash: string; namedCurve?: string } {
  const key = createPrivateKey(keyPem);
  if (key.asymmetricKeyType === "rsa") return { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
  if (key.asymmetricKeyType === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const namedCurve = curve === "secp384r1" ? "P-384" : curve === "secp521r1" ? "P-521" : "P-256";
    return { name: "ECDSA", namedCurve, hash: namedCurve === "P-256" ? "SHA-256" : "SHA-384" };
  }
  throw new Error(`unsupported private key type ${key.asymmetricKeyType ?? "unknown"}: use RSA or ECDSA`);
}

async function importPrivateKey(keyPem: string): Promise<{ key: CryptoKey; algorithm: Algorithm }> {
  const alg = signingAlgorithmOf(keyPem);
  const der = createPrivateKey(keyPem).export({ type: "pkcs8", format: "der" });
  const importAlg = alg.name === "ECDSA" ? { name: "ECDSA", namedCurve: alg.namedCurve! } : alg;
  const key = await webcrypto.subtle.importKey("pkcs8", der, importAlg, true, ["sign"]);
  return { key: key as CryptoKey, algorithm: alg as Algorithm };
}

async function importPublicKey(publicKeyPem: string): Promise<CryptoKey> {
  const pub = createPublicKey(publicKeyPem);
  const der = pub.export({ type: "spki", format: "der" });
  if (pub.asymmetricKeyType === "rsa") {
    return (await webcrypto.subtle.importKey(
      "spki",
      der,
      { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
      true,
      ["verify"],
    )) as CryptoKey;
  }
  if (pub.asymmetricKeyType === "ec") {
    const curve = pub.asymmetricKeyDetails?.namedCurve;
    const namedCurve = curve === "secp384r1" ? "P-384" : curve === "secp521r1" ? "P-521" : "P-256";
    return (await webcrypto.subtle.importKey("spki", der, { name: "ECDSA", namedCurve }, true, [
      "verify",
    ])) as CryptoKey;
  }
  throw new Error(`unsupported public key type ${pub.asymmetricKeyType ?? "unknown"}: use RSA or ECDSA`);
}

/** Subject in Go's attribute order (O before CN), one RDN per attribute type. */
function subjectName(commonName: string, organizations: readonly string[] = []): x509.JsonName {
  const name: x509.JsonName = [];
  if (organizations.length > 0) name.push({ O: [...organizations] });
  name.push({ CN: [commonName] });
  return name;
}

function serialNumber(): string {
  // Positive, at most 20 bytes (RFC 5280): clear the top bit.
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString("hex");
}

function altNames(hosts: readonly string[]): x509.JsonGeneralName[] {
  return hosts.map((h) => (isIP(h) ? { type: "ip", value: h } : { type: "dns", value: h }));
}

/** A new self-signed certificate authority (10 years unless told), with its key. */
export async function createCertificateAuthority(opts: {
  commonName: string;
  now?: Date;
  validityMs?: number;
}): Promise<CertificateAndKey> {
  const now = opts.now ?? new Date();
  const keyPem = generateKeyPem();
  const { key, algorithm } = await importPrivateKey(keyPem);
  const publicKey = await importPublicKey(publicKeyPemOf(keyPem));
  const name = subjectName(opts.commonName);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: name,
    issuer: name,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + (opts.validityMs ?? 10 * 365 * 86_400_000)),
    signingAlgorithm: algorithm,
    publicKey,
    signingKey: key,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
    ],
  });
  return { certPem: pemText(cert.toString("pem")), keyPem };
}

/**
 * A certificate signed by `ca`. Without `publicKeyPem` a new key is made and returned with it
 * (`keyPem`); with one, `keyPem` is empty (the requester keeps its key).
 */
export async function issueCertificate(
  ca: CertificateAndKey,
  req: CertificateRequest,
): Promise<CertificateAndKey> {
  const keyPem = req.publicKeyPem === undefined ? generateKeyPem() : "";
  const publicKey = await importPublicKey(req.publicKeyPem ?? publicKeyPemOf(keyPem));
  const caCert = new x509.X509Certificate(firstPem(ca.certPem));
  const { key: signingKey, algorithm } = await importPrivateKey(ca.keyPem);
  const { keyUsage, extendedKeyUsages } = req.kubernetesUsages
    ? kubernetesUsageBits(req.kubernetesUsages)
    : usageBits(req.usage);
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  // As Go's x509: no key usage extension for no bits, none for no extended usages.
  if (keyUsage !== 0) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
  if (extendedKeyUsages.length > 0)
    extensions.push(new x509.ExtendedKeyUsageExtension(extendedKeyUsages, false));
  extensions.push(await x509.AuthorityKeyIdentifierExtension.create(caCert, false));
  const names: x509.JsonGeneralName[] = [
    ...altNames(req.hosts ?? []),
    ...(req.emailAddresses ?? []).map((value) => ({ type: "email" as const, value })),
    ...(req.uris ?? []).map((value) => ({ type: "url" as const, value })),
  ];
  if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names, false));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: subjectName(req.commonName, req.organizations),
    issuer: caCert.subjectName,
    notBefore: req.notBefore ?? new Date(Date.now() - BACKDATE_MS),
    notAfter: req.notAfter,
    signingAlgorithm: algorithm,
    publicKey,
    signingKey,
    extensions,
  });
  return { certPem: pemText(cert.toString("pem")), keyPem };
}

const KEY_USAGE_BITS: Record<string, number> = {
  signing: x509.KeyUsageFlags.digitalSignature,
  "digital signature": x509.KeyUsageFlags.digitalSignature,
  "content commitment": x509.KeyUsageFlags.nonRepudiation,
  "key encipherment": x509.KeyUsageFlags.keyEncipherment,
  "key agreement": x509.KeyUsageFlags.keyAgreement,
  "data encipherment": x509.KeyUsageFlags.dataEncipherment,
  "cert sign": x509.KeyUsageFlags.keyCertSign,
  "crl sign": x509.KeyUsageFlags.cRLSign,
  "encipher only": x509.KeyUsageFlags.encipherOnly,
  "decipher only": x509.KeyUsageFlags.decipherOnly,
};

/** Extended key usages in Go's enum order (the order kube's signer writes them in). */
const EXTENDED_KEY_USAGES: Array<[string[], string]> = [
  [["any"], "2.5.29.37.0"],
  [["server auth"], x509.ExtendedKeyUsage.serverAuth],
  [["client auth"], x509.ExtendedKeyUsage.clientAuth],
  [["code signing"], x509.ExtendedKeyUsage.codeSigning],
  [["email protection", "s/mime"], x509.ExtendedKeyUsage.emailProtection],
  [["ipsec end system"], "1.3.6.1.5.5.7.3.5"],
  [["ipsec tunnel"], "1.3.6.1.5.5.7.3.6"],
  [["ipsec user"], "1.3.6.1.5.5.7.3.7"],
  [["timestamping"], x509.ExtendedKeyUsage.timeStamping],
  [["ocsp signing"], x509.ExtendedKeyUsage.ocspSigning],
  [["microsoft sgc"], "1.3.6.1.4.1.311.10.3.3"],
  [["netscape sgc"], "2.16.840.1.113730.4.1"],
];

/** What our own certificates carry: digital signature and key encipherment, for server or client TLS. */
function usageBits(usage: CertificateUsage): { keyUsage: number; extendedKeyUsages: string[] } {
  const extendedKeyUsages: string[] = [];
  if (usage !== "client") extendedKeyUsages.push(x509.ExtendedKeyUsage.serverAuth);
  if (usage !== "server") extendedKeyUsages.push(x509.ExtendedKeyUsage.clientAuth);
  const keyUsage = x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment;
  return { keyUsage, extendedKeyUsages };
}

/** Key usage bits and extended key usages for Kubernetes usage names; throws on an unknown one. */
function kubernetesUsageBits(usages: readonly string[]): { keyUsage: number; extendedKeyUsages: string[] } {
  let keyUsage = 0;
  const unknown: string[] = [];
  for (const u of usages) {
    if (KEY_USAGE_BITS[u] !== undefined) keyUsage |= KEY_USAGE_BITS[u];
    else if (!EXTENDED_KEY_USAGES.some(([names]) => names.includes(u))) unknown.push(u);
  }
  if (unknown.length > 0) {
    throw new Error(`unrecognized usage values: [${unknown.map((u) => JSON.stringify(u)).join(" ")}]`);
  }
  const extendedKeyUsages = EXTENDED_KEY_USAGES.filter(([names]) =>
    names.some((n) => usages.includes(n)),
  ).map(([, oid]) => oid);
  return { keyUsage, extendedKeyUsages };
}

/** PEM text ends with a newline, so that certificates can be concatenated into a bundle. */
function pemText(pem: string): string {
  return pem.endsWith("\n") ? pem : `${pem}\n`;
}

/** The PEM blocks of a bundle, in order. */
export function pemBlocks(pem: string, type = "CERTIFICATE"): string[] {
  const re = new RegExp(`-----BEGIN ${type}-----[\\s\\S]*?-----END ${type}-----`, "g");
  return (pem.match(re) ?? []).map((b) => `${b}\n`);
}

function firstPem(pem: string): string {
  const first = pemBlocks(pem)[0];
  if (!first) throw new Error("no PEM certificate found");
  return first;
}

function nameValues(name: x509.Name, type: string): string[] {
  return name.getField(type);
}

/** What a certificate says (the first one of a bundle). */
export function certificateInfo(pem: string): CertificateInfo {
  const cert = new x509.X509Certificate(firstPem(pem));
  const basic = cert.getExtension(x509.BasicConstraintsExtension);
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  const names = san?.names.toJSON() ?? [];
  return {
    commonName: nameValues(cert.subjectName, "CN")[0] ?? "",
    organizations: nameValues(cert.subjectName, "O"),
    issuerCommonName: nameValues(cert.issuerName, "CN")[0] ?? "",
    serialNumber: cert.serialNumber,
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    isCa: basic?.ca === true,
    dnsNames: names.filter((n) => n.type === "dns").map((n) => n.value),
    ipAddresses: names.filter((n) => n.type === "ip").map((n) => n.value),
  };
}

/**
 * `sha256:<hex>` of a certificate's DER SubjectPublicKeyInfo: the CA pin kubeadm and
 * `karmadactl register --discovery-token-ca-cert-hash` compare.
 */
export function publicKeyPin(certPem: string): string {
  const cert = new x509.X509Certificate(firstPem(certPem));
  return `sha256:${createHash("sha256").update(Buffer.from(cert.publicKey.rawData)).digest("hex")}`;
}

/** A PKCS#10 certificate request for `commonName`/`organizations`, signed with `keyPem`. */
export async function createCertificateRequest(
  keyPem: string,
  subject: { commonName: string; organizations?: readonly string[] },
): Promise<string> {
  const { key, algorithm } = await importPrivateKey(keyPem);
  const publicKey = await importPublicKey(publicKeyPemOf(keyPem));
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subjectName(subject.commonName, subject.organizations),
    keys: { privateKey: key, publicKey },
    signingAlgorithm: algorithm,
  });
  return pemText(csr.toString("pem"));
}

/** What a PKCS#10 request asks for; throws when it is not one. */
export async function parseCertificateRequest(pem: string): Promise<CsrInfo> {
  const block = pemBlocks(pem, "CERTIFICATE REQUEST")[0] ?? pemBlocks(pem, "NEW CERTIFICATE REQUEST")[0];
  if (!block) throw new Error("PEM block type must be CERTIFICATE REQUEST");
  const csr = new x509.Pkcs10CertificateRequest(
    block.replace(/NEW CERTIFICATE REQUEST/g, "CERTIFICATE REQUEST"),
  );
  const san = csr.extensions.find((e) => e instanceof x509.SubjectAlternativeNameExtension);
  const names = san instanceof x509.SubjectAlternativeNameExtension ? san.names.toJSON() : [];
  let signatureValid = false;
  try {
    signatureValid = await csr.verify();
  } catch {
    signatureValid = false;
  }
  const spki = Buffer.from(csr.publicKey.rawData);
  return {
    commonName: nameValues(csr.subjectName, "CN")[0] ?? "",
    organizations: nameValues(csr.subjectName, "O"),
    publicKeyPem: createPublicKey({ key: spki, format: "der", type: "spki" })
      .export({ type: "spki", format: "pem" })
      .toString(),
    dnsNames: names.filter((n) => n.type === "dns").map((n) => n.value),
    ipAddresses: names.filter((n) => n.type === "ip").map((n) => n.value),
    emailAddresses: names.filter((n) => n.type === "email").map((n) => n.value),
    uris: names.filter((n) => n.type === "url").map((n) => n.value),
    signatureValid,
  };
}

/** Why a certificate and key cannot serve as a CA (not a CA, key does not match, expired), or undefined. */
export function caProblem(ca: CertificateAndKey, now = Date.now()): string | undefined {
  let info: CertificateInfo;
  try {
    info = certificateInfo(ca.certPem);
  } catch (err) {
    return `not a PEM certificate (${(err as Error).message})`;
  }
  if (!info.isCa) return "the certificate is not a CA (basicConstraints CA:TRUE is missing)";
  if (info.notAfter.getTime() <= now) return `the CA expired on ${info.notAfter.toISOString()}`;
  try {
    const cert = new NodeX509Certificate(firstPem(ca.certPem));
    if (!cert.checkPrivateKey(createPrivateKey(ca.keyPem)))
      return "the key does not belong to the certificate";
  } catch (err) {
    return `the key cannot be read (${(err as Error).message})`;
  }
  return undefined;
}
