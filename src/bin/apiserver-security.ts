/**
 * `karmada apiserver`'s security flags (kube-apiserver's names) turned into what the server
 * serves with: the TLS certificate (self-signed in `--cert-dir` when none is given, as
 * kube-apiserver does), client CA, token file, service-account keys and issuer, bootstrap
 * tokens, anonymous access, authorization mode and the CSR signing CA.
 */
import { createPrivateKey, createPublicKey, X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { parseTokenFile } from "../apiserver/authn/token-file.ts";
import type { SecureServing } from "../apiserver/secure-serving.ts";
import { DEFAULT_SERVICE_ACCOUNT_ISSUER } from "../apiserver/secure-serving.ts";
import type { ApiServerOptions } from "../apiserver/server.ts";
import { loadOrCreateKey, loadOrCreateSelfSignedServing } from "../pki/cluster-pki.ts";
import { pemBlocks } from "../pki/x509.ts";
import { StartupError } from "./control-plane.ts";

export interface ApiserverSecurityFlags {
  bindAddress: string;
  certDir: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  clientCaFile?: string;
  tokenAuthFile?: string;
  serviceAccountSigningKeyFile?: string;
  serviceAccountKeyFile?: string[];
  serviceAccountIssuer?: string[];
  apiAudiences?: string[];
  serviceAccountMaxTokenExpiration?: number;
  serviceAccountJwksUri?: string;
  enableBootstrapTokenAuth: boolean;
  anonymousAuth: boolean;
  authorizationMode: string[];
  clusterSigningCertFile?: string;
  clusterSigningKeyFile?: string;
  clusterSigningDuration: number;
  rootCaFile?: string;
}

async function read(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    throw new StartupError(
      `${flag} ${path}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message}`,
    );
  }
}

type PemKind = "certificates" | "private key" | "public key";

/** Reads a PEM file a flag names and checks it holds what the flag wants, else a StartupError. */
async function readPem(flag: string, path: string, kind: PemKind): Promise<string> {
  const pem = await read(flag, path);
  try {
    if (kind === "certificates") {
      const blocks = pemBlocks(pem);
      if (blocks.length === 0) throw new Error("no PEM certificate in it");
      for (const b of blocks) new X509Certificate(b);
    } else if (kind === "private key") createPrivateKey(pem);
    else createPublicKey(pem);
  } catch (err) {
    throw new StartupError(
      `${flag} ${path}: not a valid ${kind === "certificates" ? "certificate" : kind}: ${(err as Error).message}`,
    );
  }
  return pem;
}

/** What is kept in --cert-dir, made on first use; a directory that cannot hold it is a StartupError. */
async function inCertDir<T>(dir: string, make: () => Promise<T>): Promise<T> {
  try {
    return await make();
  } catch (err) {
    throw new StartupError(`--cert-dir ${dir}: ${(err as Error).message}`);
  }
}

export const AUTHORIZATION_MODES = ["RBAC", "AlwaysAllow", "Node"] as const;

/** The authorization mode of `--authorization-mode` (Node is accepted and has no nodes to authorize here). */
export function authorizationFrom(modes: readonly string[]): "RBAC" | "AlwaysAllow" {
  const unknown = modes.filter((m) => !(AUTHORIZATION_MODES as readonly string[]).includes(m));
  if (unknown.length > 0) {
    throw new StartupError(
      `--authorization-mode: unknown mode ${unknown.join(", ")}; known: RBAC, AlwaysAllow, Node`,
    );
  }
  return modes.includes("RBAC") ? "RBAC" : "AlwaysAllow";
}

export async function securityFromFlags(
  flags: ApiserverSecurityFlags,
): Promise<
  SecureServing & { api: Pick<ApiServerOptions, "authorization" | "signingDurationMs">; selfSigned?: string }
> {
  if (!!flags.tlsCertFile !== !!flags.tlsPrivateKeyFile) {
    throw new StartupError(
      "--tls-cert-file and --tls-private-key-file go together: give both, or neither for a self-signed certificate in --cert-dir",
    );
  }
  if (!!flags.clusterSigningCertFile !== !!flags.clusterSigningKeyFile) {
    throw new StartupError("--cluster-signing-cert-file and --cluster-signing-key-file go together");
  }
  let certPem: string;
  let keyPem: string;
  let servingCa: string | undefined;
  let selfSigned: string | undefined;
  if (flags.tlsCertFile && flags.tlsPrivateKeyFile) {
    certPem = await readPem("--tls-cert-file", flags.tlsCertFile, "certificates");
    keyPem = await readPem("--tls-private-key-file", flags.tlsPrivateKeyFile, "private key");
    const blocks = pemBlocks(certPem);
    if (blocks.length > 1) servingCa = blocks[blocks.length - 1];
  } else {
    const hosts = flags.bindAddress === "0.0.0.0" || flags.bindAddress === "::" ? [] : [flags.bindAddress];
    const made = await inCertDir(flags.certDir, () => loadOrCreateSelfSignedServing(flags.certDir, hosts));
    certPem = made.certPem;
    keyPem = made.keyPem;
    servingCa = made.caPem;
    selfSigned = `${flags.certDir}/apiserver.crt`;
  }
  const clientCaPem = flags.clientCaFile
    ? await readPem("--client-ca-file", flags.clientCaFile, "certificates")
    : undefined;
  const signingKeyPem = flags.serviceAccountSigningKeyFile
    ? await readPem("--service-account-signing-key-file", flags.serviceAccountSigningKeyFile, "private key")
    : await inCertDir(flags.certDir, () => loadOrCreateKey(flags.certDir, "sa.key"));
  const publicKeyPems: string[] = [];
  for (const f of flags.serviceAccountKeyFile ?? [])
    publicKeyPems.push(await readPem("--service-account-key-file", f, "public key"));
  let tokenFile: ReturnType<typeof parseTokenFile> | undefined;
  if (flags.tokenAuthFile) {
    try {
      tokenFile = parseTokenFile(await read("--token-auth-file", flags.tokenAuthFile));
    } catch (err) {
      if (err instanceof StartupError) throw err;
      throw new StartupError(`--token-auth-file ${flags.tokenAuthFile}: ${(err as Error).message}`);
    }
  }
  const signingCa =
    flags.clusterSigningCertFile && flags.clusterSigningKeyFile
      ? {
          certPem: await readPem("--cluster-signing-cert-file", flags.clusterSigningCertFile, "certificates"),
          keyPem: await readPem("--cluster-signing-key-file", flags.clusterSigningKeyFile, "private key"),
        }
      : undefined;
  const rootCaPem = flags.rootCaFile
    ? await readPem("--root-ca-file", flags.rootCaFile, "certificates")
    : (servingCa ?? clientCaPem);
  const issuers = flags.serviceAccountIssuer?.length
    ? flags.serviceAccountIssuer
    : [DEFAULT_SERVICE_ACCOUNT_ISSUER];
  return {
    tls: { certPem, keyPem, ...(clientCaPem ? { clientCaPem } : {}) },
    api: {
      authorization: authorizationFrom(flags.authorizationMode),
      authentication: {
        clientCertificates: clientCaPem !== undefined,
        bootstrapTokens: flags.enableBootstrapTokenAuth,
        anonymous: flags.anonymousAuth,
        ...(tokenFile ? { tokenFile } : {}),
        serviceAccounts: {
          issuers,
          ...(flags.apiAudiences?.length ? { audiences: flags.apiAudiences } : {}),
          signingKeyPem,
          publicKeyPems,
          ...(flags.serviceAccountJwksUri ? { jwksUri: flags.serviceAccountJwksUri } : {}),
          ...(flags.serviceAccountMaxTokenExpiration
            ? { maxExpirationSeconds: Math.floor(flags.serviceAccountMaxTokenExpiration / 1000) }
            : {}),
        },
      },
      ...(rootCaPem ? { rootCaPem } : {}),
      ...(signingCa ? { signingCa } : {}),
      signingDurationMs: flags.clusterSigningDuration,
    },
    ...(selfSigned ? { selfSigned } : {}),
  };
}
