/**
 * Any object labelled `resourcetemplate.karmada.io/deletion-protected: Always` cannot be
 * deleted until the label goes (upstream's `resourcedeletionprotection.karmada.io` webhook,
 * which sees every DELETE).
 */

import type { KubeObject } from "../../meta.ts";

export const DELETION_PROTECTION_LABEL = "resourcetemplate.karmada.io/deletion-protected";
export const DELETION_PROTECTION_ALWAYS = "Always";

/** The refusal for deleting `obj`, or undefined when it may go. Other label values do not protect. */
export function checkDeletionProtection(obj: KubeObject): string | undefined {
  if (obj.metadata?.labels?.[DELETION_PROTECTION_LABEL] !== DELETION_PROTECTION_ALWAYS) return undefined;
  return `This resource is protected, please make sure to remove the label: ${DELETION_PROTECTION_LABEL}`;
}
