/** The CertificateSigningRequest table (`certificates.k8s.io`). */

import { humanDuration } from "./age.ts";
import { AGE_COLUMN, ageOf, fieldColumn, NAME_COLUMN, nameOf } from "./cells.ts";
import { has, int, list, str } from "./read.ts";
import type { KindPrinter, KubeObject } from "./types.ts";

/** `Denied`, `Approved` or `Pending`, then `,Failed` and `,Issued` when they apply. */
export function csrCondition(csr: KubeObject): string {
  const types = new Set(list(csr, "status", "conditions").map((c) => str(c, "type")));
  let status = types.has("Denied") ? "Denied" : types.has("Approved") ? "Approved" : "Pending";
  if (types.has("Failed")) status += ",Failed";
  if (str(csr, "status", "certificate") !== "") status += ",Issued";
  return status;
}

export const certificateSigningRequestPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    AGE_COLUMN,
    fieldColumn("SignerName", "string", "CertificateSigningRequestSpec.signerName"),
    fieldColumn("Requestor", "string", "CertificateSigningRequestSpec.request"),
    fieldColumn("RequestedDuration", "string", "CertificateSigningRequestSpec.expirationSeconds"),
    fieldColumn("Condition", "string", "CertificateSigningRequestStatus.conditions"),
  ],
  row: (csr, now) => [
    nameOf(csr),
    ageOf(csr, now),
    str(csr, "spec", "signerName") || "<none>",
    str(csr, "spec", "username"),
    has(csr, "spec", "expirationSeconds")
      ? humanDuration(int(csr, "spec", "expirationSeconds") * 1000)
      : "<none>",
    csrCondition(csr),
  ],
};
