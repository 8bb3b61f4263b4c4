/**
 * Secure serving from a cluster's PKI: HTTPS with its serving certificate, client
 * certificates checked against its CA, service-account tokens signed with its key, CSRs
 * signed by its CA, and the CA handed to service-account Secrets. What `karmada up`, the
 * member simulator and the tests serve with; `karmada apiserver` assembles the same from
 * kube-apiserver's flags.
 */

import type { ClusterPki } from "../pki/cluster-pki.ts";
import type { UserInfo } from "./context.ts";
import type { ServingTls } from "./http.ts";
import type { ApiServerOptions } from "./server.ts";

/** kube-apiserver's usual issuer (kubeadm's default `--service-account-issuer`). */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local";

export interface SecureServing {
  tls: ServingTls;
  api: Pick<ApiServerOptions, "authentication" | "rootCaPem" | "signingCa">;
}

export function secureServingFrom(
  pki: ClusterPki,
  opts: { bootstrapTokens?: boolean; tokenFile?: ReadonlyMap<string, UserInfo>; issuer?: string } = {},
): SecureServing {
  return {
    tls: {
      certPem: pki.serving.certPem + pki.ca.certPem,
      keyPem: pki.serving.keyPem,
      clientCaPem: pki.ca.certPem,
    },
    api: {
      authentication: {
        clientCertificates: true,
        ...(opts.bootstrapTokens ? { bootstrapTokens: true } : {}),
        ...(opts.tokenFile ? { tokenFile: opts.tokenFile } : {}),
        serviceAccounts: {
          issuers: [opts.issuer ?? DEFAULT_SERVICE_ACCOUNT_ISSUER],
          signingKeyPem: pki.serviceAccountKeyPem,
        },
      },
      rootCaPem: pki.ca.certPem,
      signingCa: pki.ca,
    },
  };
}
