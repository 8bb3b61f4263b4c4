/**
 * Upstream's well-known names, labels, annotations and finalizers, and its name generation
 * (`pkg/util/names`): binding names, Work names with their FNV-1a hash suffix, execution spaces.
 */
import { randomInt } from "node:crypto";

export const EXECUTION_SPACE_PREFIX = "karmada-es-";
export const RESERVED_NAMESPACES = ["karmada-system", "karmada-cluster"];

export const LABEL = {
  ppPermanentId: "propagationpolicy.karmada.io/permanent-id",
  cppPermanentId: "clusterpropagationpolicy.karmada.io/permanent-id",
  rbPermanentId: "resourcebinding.karmada.io/permanent-id",
  crbPermanentId: "clusterresourcebinding.karmada.io/permanent-id",
  workPermanentId: "work.karmada.io/permanent-id",
  managed: "karmada.io/managed",
  system: "karmada.io/system",
  retainReplicas: "resourcetemplate.karmada.io/retain-replicas",
  claimedBy: "resourcetemplate.karmada.io/claimed-by",
  skipAutoPropagation: "namespace.karmada.io/skip-auto-propagation",
  managedBy: "binding.karmada.io/managed-by",
} as const;

/** Prefix of the label an attached binding carries per binding that depends on it (key: `bindingReferenceKey`). */
export const DEPENDED_BY_LABEL_PREFIX = "resourcebinding.karmada.io/depended-by-";

export const ANNOTATION = {
  ppNamespace: "propagationpolicy.karmada.io/namespace",
  ppName: "propagationpolicy.karmada.io/name",
  cppName: "clusterpropagationpolicy.karmada.io/name",
  appliedPlacement: "policy.karmada.io/applied-placement",
  appliedOverrides: "policy.karmada.io/applied-overrides",
  appliedClusterOverrides: "policy.karmada.io/applied-cluster-overrides",
  rbNamespace: "resourcebinding.karmada.io/namespace",
  rbName: "resourcebinding.karmada.io/name",
  crbName: "clusterresourcebinding.karmada.io/name",
  workNamespace: "work.karmada.io/namespace",
  workName: "work.karmada.io/name",
  conflictResolution: "work.karmada.io/conflict-resolution",
  templateUid: "resourcetemplate.karmada.io/uid",
  templateGeneration: "resourcetemplate.karmada.io/generation",
  managedLabels: "resourcetemplate.karmada.io/managed-labels",
  managedAnnotations: "resourcetemplate.karmada.io/managed-annotations",
  /** On an independent binding: the JSON list of its template's dependencies. */
  dependencies: "resourcebinding.karmada.io/dependencies",
} as const;

export const FINALIZER = {
  propagationPolicy: "karmada.io/propagation-policy-controller",
  clusterPropagationPolicy: "karmada.io/cluster-propagation-policy-controller",
  binding: "karmada.io/binding-controller",
  clusterBinding: "karmada.io/cluster-resource-binding-controller",
  execution: "karmada.io/execution-controller",
  dependenciesDistributor: "karmada.io/binding-dependencies-distributor",
} as const;

export function executionSpace(cluster: string): string {
  return `${EXECUTION_SPACE_PREFIX}${cluster}`;
}

/** The cluster of an execution space, or undefined for any other namespace. */
export function clusterOfExecutionSpace(namespace: string | undefined): string | undefined {
  return namespace?.startsWith(EXECUTION_SPACE_PREFIX)
    ? namespace.slice(EXECUTION_SPACE_PREFIX.length)
    : undefined;
}

export function isReservedNamespace(namespace: string | undefined): boolean {
  return (
    namespace !== undefined &&
    (RESERVED_NAMESPACES.includes(namespace) || namespace.startsWith(EXECUTION_SPACE_PREFIX))
  );
}

/** `nginx` Deployment → `nginx-deployment`; `:` becomes `.`. */
export function bindingName(kind: string, name: string): string {
  return `${name.replaceAll(":", ".")}-${kind}`.toLowerCase();
}

/** FNV-1a, 32 bits, over the UTF-8 bytes. */
export function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** Kubernetes' rand.String: random characters of the vowel-free alphabet (generated name suffixes). */
export function randomSuffix(length = 5): string {
  return Array.from({ length }, () => SAFE_ALPHABET[randomInt(SAFE_ALPHABET.length)]).join("");
}

/** Kubernetes' rand.SafeEncodeString: each character mapped into a vowel-free alphabet. */
export function safeEncode(text: string): string {
  let out = "";
  for (const ch of text) out += SAFE_ALPHABET[ch.charCodeAt(0) % SAFE_ALPHABET.length];
  return out;
}

/** The Work name of a template: `default/nginx` Deployment → `nginx-687f7fb96f`. */
export function workName(kind: string, name: string, namespace?: string): string {
  const base = name.replaceAll(":", ".").toLowerCase();
  const key = (namespace ? `${namespace}-${base}-${kind}` : `${base}-${kind}`).toLowerCase();
  return `${base}-${safeEncode(String(fnv32a(key)))}`;
}

/** The key of a binding in `resourcebinding.karmada.io/depended-by-<key>` labels. */
export function bindingReferenceKey(name: string, namespace?: string): string {
  return safeEncode(String(fnv32a(namespace ? `${namespace}/${name}` : name)));
}

/**
 * The policy `karmadactl promote` creates (upstream's GeneratePolicyName): the object's name
 * (`:` → `.`) and a hash of its namespace and GVK string, lower-cased.
 */
export function generatePolicyName(namespace: string, name: string, gvk: string): string {
  return `${name.replaceAll(":", ".")}-${safeEncode(String(fnv32a(namespace + gvk)))}`.toLowerCase();
}
