/**
 * The objects given to the what-if (`-f`), as the control plane would store them if they were
 * applied (pure): YAML or JSON text split into objects (multi-document, `kind: List`), sorted
 * into Karmada policies and resource templates; policies schema-defaulted, mutated and
 * validated as the API server's admission does it (an invalid policy is refused with the
 * causes `kubectl apply` would print), templates given their namespace and the API server's
 * decode defaults for built-in kinds (a Deployment without `replicas` has 1).
 */
import { parseAllDocuments } from "yaml";
import { applyDefaults } from "../api/defaults/index.ts";
import {
  mutateClusterPropagationPolicy,
  mutatePropagationPolicy,
  validateClusterPropagationPolicy,
  validatePropagationPolicy,
} from "../api/karmada/admission/propagation-policy.ts";
import { clusterPropagationPolicyCrd, propagationPolicyCrd } from "../api/karmada/policy.ts";
import { parseApiVersion, rfc3339, type StoredObject } from "../api/meta.ts";
import type { CustomResourceDefinition } from "../api/schema.ts";
import { LABEL } from "../karmada/names.ts";
import { fieldErrorMessage } from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { applySchemaDefaults, validateObject } from "../machinery/structural.ts";
import { SimulationInputError } from "./changes.ts";
import type { Policy } from "./types.ts";

/** One object and where it came from (a file name, `-`, or whatever the dashboard calls its text). */
export interface Manifest {
  source: string;
  object: StoredObject;
}

/** Every object in `text`; throws `SimulationInputError` naming `source` when it is not YAML or JSON objects. */
export function parseManifests(text: string, source: string): Manifest[] {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  const out: Manifest[] = [];
  for (const [i, doc] of list.entries()) {
    const where = list.length > 1 ? `${source} (document ${i + 1})` : source;
    if (doc.errors.length > 0) {
      throw new SimulationInputError(`error parsing ${where}: ${firstLine(doc.errors[0]!.message)}`);
    }
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) continue;
    const items =
      isRecord(value) && value.kind === "List" && Array.isArray(value.items) ? value.items : [value];
    for (const item of items as unknown[]) out.push({ source, object: checkedObject(item, where) });
  }
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const firstLine = (message: string): string => message.split("\n")[0]!.trim();

function checkedObject(value: unknown, where: string): StoredObject {
  if (!isRecord(value))
    throw new SimulationInputError(`error parsing ${where}: a document must be an object`);
  if (typeof value.apiVersion !== "string" || !value.apiVersion) {
    throw new SimulationInputError(`error validating ${where}: apiVersion not set`);
  }
  if (typeof value.kind !== "string" || !value.kind) {
    throw new SimulationInputError(`error validating ${where}: kind not set`);
  }
  const meta = value.metadata;
  if (!isRecord(meta) || typeof meta.name !== "string" || meta.name === "") {
    throw new SimulationInputError(`error validating ${where}: ${value.kind} has no metadata.name`);
  }
  return cloneJson(value) as StoredObject;
}

const POLICY_GROUP = "policy.karmada.io/v1alpha1";
const CONFIG_GROUP = "config.karmada.io/v1alpha1";

/** What a set of manifests holds, policies as admission would store them. */
export interface SortedManifests {
  propagationPolicies: Policy[];
  clusterPropagationPolicies: Policy[];
  overridePolicies: StoredObject[];
  clusterOverridePolicies: StoredObject[];
  customizations: StoredObject[];
  /** Everything else, in the order given. */
  templates: Manifest[];
}

export interface AdmitOptions {
  /** The namespace of namespaced objects that name none (kubectl's `-n`, default `default`). */
  namespace: string;
  now: number;
  /** The live policies: a file policy of the same name updates one (keeping its permanent id). */
  livePropagationPolicies: readonly Policy[];
  liveClusterPropagationPolicies: readonly Policy[];
}

interface PolicyKind {
  crd: CustomResourceDefinition;
  idLabel: string;
  mutate: typeof mutatePropagationPolicy;
  validate: typeof validatePropagationPolicy;
}

const PP: PolicyKind = {
  crd: propagationPolicyCrd,
  idLabel: LABEL.ppPermanentId,
  mutate: mutatePropagationPolicy,
  validate: validatePropagationPolicy,
};
const CPP: PolicyKind = {
  crd: clusterPropagationPolicyCrd,
  idLabel: LABEL.cppPermanentId,
  mutate: mutateClusterPropagationPolicy,
  validate: validateClusterPropagationPolicy,
};

/** A policy as the API server would store it: schema defaults, admission's mutation, then validation. */
function admitPolicy(
  kind: PolicyKind,
  m: Manifest,
  live: StoredObject | undefined,
  ctx: { newUid: () => string; now: () => number },
): Policy {
  const policy = cloneJson(m.object);
  const schema = kind.crd.spec.versions.find((v) => v.storage)?.schema?.openAPIV3Schema;
  if (schema) applySchemaDefaults(policy, schema);
  if (live) {
    // An update: the permanent id stays (admission refuses to change it).
    const id = live.metadata.labels?.[kind.idLabel];
    if (id) policy.metadata.labels = { ...policy.metadata.labels, [kind.idLabel]: id };
  }
  policy.metadata.uid ??= live?.metadata.uid ?? ctx.newUid();
  policy.metadata.creationTimestamp ??= live?.metadata.creationTimestamp ?? rfc3339(ctx.now());
  kind.mutate(policy, live, ctx);
  const errors = [...(schema ? validateObject(policy, schema) : []), ...kind.validate(policy, live)];
  if (errors.length > 0) {
    const { group } = parseApiVersion(policy.apiVersion);
    const messages = errors.map(fieldErrorMessage);
    const list = messages.length === 1 ? messages[0] : `[${messages.join(", ")}]`;
    throw new SimulationInputError(
      `${m.source}: ${policy.kind}.${group} "${policy.metadata.name}" is invalid: ${list}`,
    );
  }
  return policy as Policy;
}

/** Sorts the manifests and admits their policies; throws `SimulationInputError` for an invalid policy. */
export function sortManifests(manifests: readonly Manifest[], options: AdmitOptions): SortedManifests {
  let n = 0;
  const ctx = { newUid: () => `simulated-${++n}`, now: () => options.now, policyFinalizers: false };
  const out: SortedManifests = {
    propagationPolicies: [],
    clusterPropagationPolicies: [],
    overridePolicies: [],
    clusterOverridePolicies: [],
    customizations: [],
    templates: [],
  };
  for (const m of manifests) {
    const { apiVersion, kind } = m.object;
    const withNamespace = (): Manifest => {
      const object = cloneJson(m.object);
      object.metadata.namespace ||= options.namespace;
      return { source: m.source, object };
    };
    if (apiVersion === POLICY_GROUP && kind === "PropagationPolicy") {
      const nm = withNamespace();
      const live = options.livePropagationPolicies.find(
        (p) =>
          p.metadata.namespace === nm.object.metadata.namespace &&
          p.metadata.name === nm.object.metadata.name,
      );
      out.propagationPolicies.push(admitPolicy(PP, nm, live, ctx));
    } else if (apiVersion === POLICY_GROUP && kind === "ClusterPropagationPolicy") {
      const live = options.liveClusterPropagationPolicies.find(
        (p) => p.metadata.name === m.object.metadata.name,
      );
      const cluster = cloneJson(m.object);
      delete cluster.metadata.namespace;
      out.clusterPropagationPolicies.push(admitPolicy(CPP, { source: m.source, object: cluster }, live, ctx));
    } else if (apiVersion === POLICY_GROUP && kind === "OverridePolicy") {
      out.overridePolicies.push(withNamespace().object);
    } else if (apiVersion === POLICY_GROUP && kind === "ClusterOverridePolicy") {
      out.clusterOverridePolicies.push(m.object);
    } else if (apiVersion === CONFIG_GROUP && kind === "ResourceInterpreterCustomization") {
      out.customizations.push(m.object);
    } else {
      out.templates.push(m);
    }
  }
  return out;
}

/**
 * A template as the API server would hold it: in `namespace` when its kind is namespaced and it
 * names none (no namespace when cluster-scoped), with the decode defaults of built-in kinds.
 */
export function storedTemplate(object: StoredObject, namespaced: boolean, namespace: string): StoredObject {
  const out = cloneJson(object);
  if (namespaced) out.metadata.namespace ||= namespace;
  else delete out.metadata.namespace;
  const { group, version } = parseApiVersion(out.apiVersion);
  applyDefaults(group, version, out.kind, out);
  return out;
}

/** The scope of each kind the manifests' CustomResourceDefinitions define (`group/version|Kind`). */
export function crdScopes(manifests: readonly Manifest[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const { object } of manifests) {
    if (object.apiVersion !== "apiextensions.k8s.io/v1" || object.kind !== "CustomResourceDefinition")
      continue;
    const spec = object.spec as
      | { group?: string; scope?: string; names?: { kind?: string }; versions?: Array<{ name?: string }> }
      | undefined;
    if (!spec?.group || !spec.names?.kind) continue;
    for (const v of spec.versions ?? []) {
      if (v.name) out.set(`${spec.group}/${v.name}|${spec.names.kind}`, spec.scope !== "Cluster");
    }
  }
  return out;
}
