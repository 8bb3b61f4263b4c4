/**
 * Rules upstream reports as a plain sentence rather than a list of field errors. A Kubernetes
 * API server wraps a webhook's refusal as `admission webhook "<name>" denied the request:
 * <message>` with code 403; we answer the same, naming the webhook upstream registers.
 */

import { ApiError, type StatusReason } from "../../../machinery/errors.ts";

/** The webhook names of upstream's `webhook-configuration.yaml`. */
export const WEBHOOK = {
  propagationPolicy: "propagationpolicy.karmada.io",
  clusterPropagationPolicy: "clusterpropagationpolicy.karmada.io",
  resourceBinding: "resourcebinding.karmada.io",
  resourceInterpreterCustomization: "resourceinterpretercustomization.karmada.io",
  resourceDeletionProtection: "resourcedeletionprotection.karmada.io",
} as const;

/** The reason the ResourceBinding webhook gives when a FederatedResourceQuota would be exceeded. */
export const QUOTA_EXCEEDED_REASON = "QuotaExceeded";

export function webhookDenied(webhook: string, message: string, reason: string = "Forbidden"): ApiError {
  return new ApiError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `admission webhook ${JSON.stringify(webhook)} denied the request: ${message}`,
    // QuotaExceeded is Karmada's own reason, outside the Kubernetes list.
    reason: reason as StatusReason,
    code: 403,
  });
}
