/**
 * Reading CertificateSigningRequests (`certificates.k8s.io/v1`): the signer client
 * certificates for the API come from, and the parts of a request its approvers, signer and
 * requesters look at. Shared by the API server's admission, approval and signing, the agent
 * CSR approver, `karmadactl register` and certificate rotation.
 */
import { isObject, type StoredObject } from "./meta.ts";

export const KUBE_APISERVER_CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client";
/** The usages an agent (and `karmadactl register`) asks for, as upstream's do. */
export const CLIENT_CERTIFICATE_USAGES = ["digital signature", "key encipherment", "client auth"];

export interface CsrCondition {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
  lastUpdateTime?: unknown;
  lastTransitionTime?: unknown;
}

export function csrConditions(csr: StoredObject): Array<CsrCondition & Record<string, unknown>> {
  const status = isObject(csr.status) ? csr.status : {};
  return Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
}

/** `spec.usages`, the strings among them. */
export function csrUsages(csr: StoredObject): string[] {
  const spec = isObject(csr.spec) ? csr.spec : {};
  return Array.isArray(spec.usages) ? spec.usages.filter((u): u is string => typeof u === "string") : [];
}

/** `status.certificate` as stored (base64 of PEM); empty until signed. */
export function csrCertificate(csr: StoredObject): string {
  return isObject(csr.status) && typeof csr.status.certificate === "string" ? csr.status.certificate : "";
}
