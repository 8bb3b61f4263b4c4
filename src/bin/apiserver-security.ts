/**
 * `karmada apiserver`'s security flags (kube-apiserver's names) turned into what the server
 * serves with: the TLS certificate (self-signed in `--cert-dir` when none is given, as
 * kube-apiserver does), client CA, token file, service-account keys and issuer, bootstrap
 * tokens, anonymous access, authorization mode and the CSR signing CA.
 */
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
    certPem = await read("--tls-cert-file", flags.tlsCertFile);
    keyPem = await read("--tls-private-key-file", flags.tlsPrivateKeyFile);
    const blocks = pemBlocks(certPem);
    if (blocks.length === 0)
      throw new StartupError(`--tls-cert-file ${flags.tlsCertFile}: no PEM certificate in it`);
    if (blocks.length > 1) servingCa = blocks[blocks.length - 1];
  } else {
    const hosts = flags.bindAddress === "0.0.0.0" || flags.bindAddress === "::" ? [] : [flags.bindAddress];
    const made = await loadOrCreateSelfSignedServing(flags.certDir, hosts);
    certPem = made.certPem;
    keyPem = made.keyPem;
    servingCa = made.caPem;
    selfSigned = `${flags.certDir}/apiserver.crt`;
  }
  const clientCaPem = flags.clientCaFile ? await read("--client-ca-file", flags.clientCaFile) : undefined;
  const signingKeyPem = flags.serviceAccountSigningKeyFile
    ? await read("--service-account-signing-key-file", flags.serviceAccountSigningKeyFile)
    : await loadOrCreateKey(flags.certDir, "sa.key");
  const publicKeyPems: string[] = [];
  for (const f of flags.serviceAccountKeyFile ?? [])
    publicKeyPems.push(await read("--service-account-key-file", f));
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
          certPem: await read("--cluster-signing-cert-file", flags.clusterSigningCertFile),
          keyPem: await read("--cluster-signing-key-file", flags.clusterSigningKeyFile),
        }
      : undefined;
  const rootCaPem = flags.rootCaFile
    ? await read("--root-ca-file", flags.rootCaFile)
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
