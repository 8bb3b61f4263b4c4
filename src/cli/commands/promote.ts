/**
 * `karmadactl promote`: takes over an object that already runs in a member cluster (a "legacy"
 * workload) into Karmada. The object is read from the member, pruned of what its API server
 * and controllers filled in, annotated `work.karmada.io/conflict-resolution: overwrite` and
 * created in the control plane as a resource template, with a PropagationPolicy (namespaced)
 * or ClusterPropagationPolicy (cluster-scoped) that places exactly that object on exactly that
 * cluster. The Work then adopts the member's object in place (same uid) instead of failing on
 * the conflict. Upstream's policy also sets `preserveResourcesOnDeletion: true`: deleting the
 * template later leaves the member's object running, released from Karmada.
 *
 * The member is reached with `--cluster-kubeconfig` (context `--cluster-context`, else the one
 * named like the cluster), or, without it, through the context named like the cluster in the
 * control plane's kubeconfig (upstream goes through the control plane's cluster proxy, which
 * we do not serve).
 */
import { stringify } from "yaml";
import { apiVersionOf, type KubeObject, parseApiVersion, type StoredObject } from "../../api/meta.ts";
import { type Client, RESOURCES, type ResourceRef } from "../../client/client.ts";
import type { HttpClient } from "../../client/http.ts";
import { nativeInterpreter } from "../../interpreter/native/index.ts";
import { prune } from "../../interpreter/native/prune.ts";
import type { DependentObjectReference } from "../../interpreter/types.ts";
import { ANNOTATION, generatePolicyName, LABEL } from "../../karmada/names.ts";
import { KARMADA } from "../../karmada/resources.ts";
import { errorMessage, isNotFound } from "../../machinery/errors.ts";
import { type ClientFactory, CommandError, type CommandIO } from "../io.ts";
import { resolveResourceType } from "../resource-types.ts";
import { sortKeys } from "./get.ts";

export interface PromoteOptions {
  /** The positional arguments as given: RESOURCE_TYPE and RESOURCE_NAME. */
  args: string[];
  /** `-C`: the member cluster the object runs in. */
  cluster: string;
  /** `-n` (default `default`); ignored for cluster-scoped resources. */
  namespace: string;
  clusterKubeconfig?: string;
  /** Context in `clusterKubeconfig`; as upstream, the cluster's name when not given. */
  clusterContext?: string;
  /** The control plane's kubeconfig: without `clusterKubeconfig`, its context named like the cluster reaches the member. */
  controlPlaneKubeconfig: string;
  /** `-d`: promote the ConfigMaps, Secrets, ... the workload depends on first. */
  dependencies: boolean;
  /** Create the (Cluster)PropagationPolicy (upstream's default: true). */
  autoCreatePolicy: boolean;
  policyName?: string;
  dryRun: boolean;
  /** `yaml` or `json`: print the template and the policy instead of creating them. */
  output?: string;
}

/** Upstream's Complete and Validate checks, with its messages. */
export function validatePromoteOptions(opts: Pick<PromoteOptions, "args" | "cluster" | "output">): void {
  if (opts.args.length !== 2) {
    throw new CommandError("incorrect command format, please use correct command format");
  }
  if (opts.cluster === "") throw new CommandError("the cluster cannot be empty");
  if (opts.output !== undefined && opts.output !== "yaml" && opts.output !== "json") {
    throw new CommandError("invalid output format: supported formats are json and yaml");
  }
}

/** Go's `schema.GroupVersionKind.String()`: `apps/v1, Kind=Deployment`, `/v1, Kind=ConfigMap`. */
export function gvkString(apiVersion: string, kind: string): string {
  const { group, version } = parseApiVersion(apiVersion);
  return `${group}/${version}, Kind=${kind}`;
}

/** Go's `schema.GroupVersionResource.String()`: `apps/v1, Resource=deployments`. */
export function gvrString(ref: Pick<ResourceRef, "group" | "version" | "resource">): string {
  return `${ref.group}/${ref.version}, Resource=${ref.resource}`;
}

/**
 * The member's object as a resource template: pruned as a Work manifest is (keeping a Job's
 * `ttlSecondsAfterFinished`, which the user set), with the overwrite conflict resolution unless
 * the object already names one.
 */
export function prepareTemplate(obj: KubeObject): KubeObject {
  const out = prune(obj, { keepJobTtlSecondsAfterFinished: true });
  const annotations = out.metadata?.annotations ?? {};
  if (ANNOTATION.conflictResolution in annotations) return out;
  out.metadata = {
    ...out.metadata,
    annotations: { ...annotations, [ANNOTATION.conflictResolution]: "overwrite" },
  };
  return out;
}

export interface PolicyTarget {
  policyName: string;
  /** Undefined for a cluster-scoped object: a ClusterPropagationPolicy. */
  namespace?: string;
  /** The selected object: its group/version in the control plane, kind and name. */
  apiVersion: string;
  kind: string;
  name: string;
  cluster: string;
  propagateDeps: boolean;
}

/** Upstream's `buildPropagationPolicy` / `buildClusterPropagationPolicy`. */
export function buildPolicy(t: PolicyTarget): KubeObject {
  const ref = t.namespace === undefined ? KARMADA.clusterPropagationPolicies : KARMADA.propagationPolicies;
  return {
    apiVersion: apiVersionOf(ref.group, ref.version),
    kind: ref.kind!,
    metadata: { name: t.policyName, ...(t.namespace === undefined ? {} : { namespace: t.namespace }) },
    spec: {
      // `omitempty` upstream: only written when true.
      ...(t.propagateDeps ? { propagateDeps: true } : {}),
      resourceSelectors: [{ apiVersion: t.apiVersion, kind: t.kind, name: t.name }],
      placement: { clusterAffinity: { clusterNames: [t.cluster] } },
      conflictResolution: "Overwrite",
      preserveResourcesOnDeletion: true,
    },
  };
}

// --- running it ---------------------------------------------------------------------------

/** kubectl's YAML and JSON printers: YAML documents after the first start with `---`. */
function printObjects(io: CommandIO, format: string, objects: KubeObject[]): void {
  for (const [i, obj] of objects.entries()) {
    if (format === "json") {
      io.stdout.write(`${JSON.stringify(sortKeys(obj), null, 4)}\n`);
    } else {
      if (i > 0) io.stdout.write("---\n");
      io.stdout.write(
        stringify(obj, { sortMapEntries: true, indentSeq: false, lineWidth: 0, version: "1.1" }),
      );
    }
  }
}

/** The member cluster's client, as the options say it is reached. */
async function memberClient(opts: PromoteOptions, karmada: Client, clients: ClientFactory): Promise<Client> {
  if (opts.clusterKubeconfig) {
    try {
      return (await clients.cluster(opts.clusterKubeconfig, opts.clusterContext ?? opts.cluster)).client;
    } catch (err) {
      throw new CommandError(`failed to get resource in cluster(${opts.cluster}). err: ${errorMessage(err)}`);
    }
  }
  try {
    // As upstream: the cluster must be known to Karmada.
    await karmada.get(RESOURCES.clusters, undefined, opts.cluster);
    return (await clients.cluster(opts.controlPlaneKubeconfig, opts.cluster)).client;
  } catch (err) {
    throw new CommandError(`failed to get Factory of the member cluster. err: ${errorMessage(err)}`);
  }
}

interface Found {
  obj: StoredObject;
  ref: ResourceRef;
}

/**
 * Reads `name` of `type` from the member (`undefined` when the type resolves but the object is
 * not there). Errors carry the cause only; callers add upstream's context.
 */
async function readFromMember(
  member: Client,
  namespace: string,
  type: string,
  name: string,
): Promise<Found | undefined> {
  const found = await resolveResourceType(member as HttpClient, type);
  const ref: ResourceRef = {
    group: found.group,
    version: found.version,
    resource: found.resource,
    namespaced: found.namespaced,
    kind: found.kind,
  };
  return readRef(member, ref, namespace, name);
}

async function readRef(
  member: Client,
  ref: ResourceRef,
  namespace: string,
  name: string,
): Promise<Found | undefined> {
  try {
    const obj = await member.get(ref, ref.namespaced ? namespace : undefined, name);
    // A GET answers with both set; make sure the template and policy can rely on them.
    obj.apiVersion ??= apiVersionOf(ref.group, ref.version);
    obj.kind ??= ref.kind ?? "";
    return { obj, ref };
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const ALREADY_IN_KARMADA =
  "already exist in karmada control plane, you can edit PropagationPolicy and OverridePolicy to propagate it";

/** `(namespace/name)` or `(name)`, as upstream's messages write an object. */
function where(namespace: string | undefined, name: string): string {
  return namespace ? `(${namespace}/${name})` : `(${name})`;
}

export async function runPromote(opts: PromoteOptions, io: CommandIO, clients: ClientFactory): Promise<void> {
  validatePromoteOptions(opts);
  const [type, name] = opts.args as [string, string];
  const karmada = await clients.controlPlane();
  const member = await memberClient(opts, karmada, clients);

  let found: Found | undefined;
  try {
    found = await readFromMember(member, opts.namespace, type, name);
  } catch (err) {
    throw new CommandError(`failed to get resource in cluster(${opts.cluster}). err: ${errorMessage(err)}`);
  }
  if (!found) {
    throw new CommandError(
      `failed to get resource in cluster(${opts.cluster}). err: the ${type} or ${name} don't exist in cluster(${opts.cluster})`,
    );
  }
  const { obj } = found;
  const apiVersion = String(obj.apiVersion);
  const kind = String(obj.kind);
  const gvk = gvkString(apiVersion, kind);

  let ref: ResourceRef;
  try {
    ref = await karmada.resourceFor(apiVersion, kind);
  } catch (err) {
    throw new CommandError(`failed to get gvr from ${JSON.stringify(gvk)}: ${errorMessage(err)}`);
  }
  const gvr = JSON.stringify(gvrString(ref));
  const namespace = ref.namespaced ? opts.namespace : undefined;

  // Upstream promotes dependencies even with -o (before printing); "dump, do not deploy" is
  // what -o promises, so we leave them alone then, as with --dry-run.
  if (opts.dependencies && !opts.dryRun && opts.output === undefined) {
    try {
      await promoteDependencies(opts, io, karmada, member, obj);
    } catch (err) {
      throw new CommandError(
        `failed to promote dependencies of resource ${gvr}(${opts.namespace}/${name}) automatically: ${errorMessage(err)}`,
      );
    }
  }

  const template = prepareTemplate(obj);
  // Upstream names a ClusterPropagationPolicy from an empty namespace when it creates one (but
  // from -n when it prints one); we use the name it creates in both cases.
  const policyName = opts.policyName || generatePolicyName(namespace ?? "", name, gvk);
  const policy = buildPolicy({
    policyName,
    ...(namespace === undefined ? {} : { namespace }),
    apiVersion: apiVersionOf(ref.group, ref.version),
    kind,
    name,
    cluster: opts.cluster,
    propagateDeps: opts.dependencies,
  });

  if (opts.output !== undefined) {
    printObjects(io, opts.output, opts.autoCreatePolicy ? [template, policy] : [template]);
    return;
  }
  if (opts.dryRun) return;

  try {
    await karmada.get(ref, namespace, name);
    // Upstream warns and succeeds: the template is Karmada's already.
    io.stderr.write(`Warning: Resource ${gvr}${where(namespace, name)} ${ALREADY_IN_KARMADA}\n`);
    return;
  } catch (err) {
    if (!isNotFound(err)) {
      throw new CommandError(
        `failed to get resource ${gvr}${where(namespace, name)} in control plane: ${errorMessage(err)}`,
      );
    }
  }
  try {
    await karmada.create(ref, template);
  } catch (err) {
    throw new CommandError(
      `failed to create resource ${gvr}${where(namespace, name)} in control plane: ${errorMessage(err)}`,
    );
  }
  // Upstream writes the -n namespace here even for a cluster-scoped object.
  io.stdout.write(`ResourceTemplate (${opts.namespace}/${name}) is created successfully\n`);

  if (opts.autoCreatePolicy) {
    await createPolicy(karmada, policy, namespace);
    io.stdout.write(
      namespace === undefined
        ? `ClusterPropagationPolicy ${policyName} is created successfully\n`
        : `PropagationPolicy (${namespace}/${policyName}) is created successfully\n`,
    );
  }
  io.stdout.write(`Resource ${gvr}${where(namespace, name)} is promoted successfully\n`);
}

/** Creates the policy unless one of that name exists (then upstream's error: edit it instead). */
async function createPolicy(
  karmada: Client,
  policy: KubeObject,
  namespace: string | undefined,
): Promise<void> {
  const ref = namespace === undefined ? KARMADA.clusterPropagationPolicies : KARMADA.propagationPolicies;
  const name = policy.metadata?.name ?? "";
  const label =
    namespace === undefined ? `ClusterPropagationPolicy(${name})` : `PropagationPolicy(${namespace}/${name})`;
  try {
    await karmada.get(ref, namespace, name);
  } catch (err) {
    if (!isNotFound(err))
      throw new CommandError(`failed to get ${label} in control plane: ${errorMessage(err)}`);
    await karmada.create(ref, policy);
    return;
  }
  throw new CommandError(`the ${label} already exist, please edit it to propagate resource`);
}

// --- dependencies ---------------------------------------------------------------------------

interface PromotedDependency {
  ref: ResourceRef;
  namespace: string | undefined;
  name: string;
}

/**
 * Upstream's `promoteDeps`: each dependency the interpreter names is read from the member and
 * created in the control plane as a template (with the overwrite annotation); the main policy's
 * `propagateDeps` then carries them. A failure takes back the ones promoted so far; one that
 * is in the control plane already ends dependency promotion (after taking back the others)
 * without failing the command.
 */
async function promoteDependencies(
  opts: PromoteOptions,
  io: CommandIO,
  karmada: Client,
  member: Client,
  obj: KubeObject,
): Promise<void> {
  // Only the native interpreter here: upstream also asks declarative customizations, webhooks
  // and its third-party rules, none of which we serve yet.
  const dependencies = nativeInterpreter.getDependencies(obj);
  if (dependencies === undefined) {
    io.stderr.write("Warning: there is no interpreter configured support to interpret dependencies\n");
    return;
  }
  io.stdout.write("use default interpreter\n");
  const promoted: PromotedDependency[] = [];
  const fail = async (message: string): Promise<never> => {
    await revertDependencies(io, karmada, member, promoted);
    throw new Error(message);
  };
  for (const dep of dependencies) {
    // Dependencies chosen by label selector have no name to promote (upstream reads by name).
    if (!dep.name) continue;
    const found = await readDependency(member, dep).catch((err: unknown) =>
      fail(
        `failed to get dependency ${JSON.stringify(dep.kind)}(${dep.namespace}/${dep.name}) in cluster(${opts.cluster}): ${errorMessage(err)}`,
      ),
    );
    if (!found) {
      return fail(
        `failed to get dependency ${JSON.stringify(dep.kind)}(${dep.namespace}/${dep.name}) in cluster(${opts.cluster}): the ${dep.kind} or ${dep.name} don't exist in cluster(${opts.cluster})`,
      );
    }
    let ref: ResourceRef;
    try {
      ref = await karmada.resourceFor(String(found.obj.apiVersion), String(found.obj.kind));
    } catch (err) {
      const gvk = gvkString(String(found.obj.apiVersion), String(found.obj.kind));
      return fail(`failed to get dependency gvr from ${JSON.stringify(gvk)}: ${errorMessage(err)}`);
    }
    const namespace = ref.namespaced ? dep.namespace : undefined;
    const gvr = JSON.stringify(gvrString(ref));
    try {
      await karmada.get(ref, namespace, dep.name);
      await revertDependencies(io, karmada, member, promoted);
      io.stderr.write(
        `Warning: Dependency resource ${gvr}${where(namespace, dep.name)} ${ALREADY_IN_KARMADA}\n`,
      );
      return;
    } catch (err) {
      if (!isNotFound(err)) {
        return fail(
          `failed to get dependency resource ${gvr}${where(namespace, dep.name)} in control plane: ${errorMessage(err)}`,
        );
      }
    }
    try {
      await karmada.create(ref, prepareTemplate(found.obj));
    } catch (err) {
      return fail(
        `failed to create dependency resource ${gvr}${where(namespace, dep.name)} in control plane: ${errorMessage(err)}`,
      );
    }
    promoted.push({ ref, namespace, name: dep.name });
    io.stdout.write(`Dependency resource ${gvr}${where(namespace, dep.name)} is promoted successfully\n`);
  }
}

async function readDependency(member: Client, dep: DependentObjectReference): Promise<Found | undefined> {
  const ref = await member.resourceFor(dep.apiVersion, dep.kind);
  return readRef(member, ref, dep.namespace, dep.name ?? "");
}

/**
 * Upstream's `revertPromotedDeps`: the member's copy loses the labels that would make the
 * template's deletion remove it, then the template goes. Best effort: the first failure is
 * reported and ends the revert.
 */
async function revertDependencies(
  io: CommandIO,
  karmada: Client,
  member: Client,
  promoted: PromotedDependency[],
): Promise<void> {
  for (const dep of promoted) {
    const gvr = JSON.stringify(gvrString(dep.ref));
    const at = where(dep.namespace, dep.name);
    try {
      const obj = await member.get(dep.ref, dep.namespace, dep.name);
      const labels = obj.metadata.labels ?? {};
      if (LABEL.workPermanentId in labels || LABEL.managed in labels) {
        delete labels[LABEL.workPermanentId];
        delete labels[LABEL.managed];
        await member.update(dep.ref, obj);
      }
      await karmada.delete(dep.ref, dep.namespace, dep.name);
    } catch (err) {
      io.stderr.write(
        `revertPromotedDeps failed to revert dependency resource ${gvr}${at}: ${errorMessage(err)}\n`,
      );
      return;
    }
    io.stdout.write(`Dependency resource ${gvr}${at} is reverted successfully\n`);
  }
}

// --- flags as pflag reads them ---------------------------------------------------------------

const PFLAG_TRUE = new Set(["1", "t", "T", "true", "TRUE", "True"]);
const PFLAG_FALSE = new Set(["0", "f", "F", "false", "FALSE", "False"]);

/**
 * Rewrites the pflag spellings upstream's help and examples use into ones commander reads:
 * `-C=member1` → `-C member1`, and for the boolean flags `--name=true` → `--name`,
 * `--name=false` → `--no-name` (`-d=true` likewise). Anything after `--` is left alone.
 */
export function normalizePflagArgs(
  argv: string[],
  booleans: Array<{ long: string; short?: string }>,
): string[] {
  const out: string[] = [];
  for (const [i, arg] of argv.entries()) {
    if (arg === "--") {
      out.push(...argv.slice(i));
      break;
    }
    const m = /^(--?)([^=]+)=(.*)$/.exec(arg);
    if (!m) {
      out.push(arg);
      continue;
    }
    const [, dashes, flag, value] = m as unknown as [string, string, string, string];
    const bool = booleans.find((b) => (dashes === "--" ? b.long === flag : b.short === flag));
    if (bool && (PFLAG_TRUE.has(value) || PFLAG_FALSE.has(value))) {
      out.push(PFLAG_TRUE.has(value) ? `--${bool.long}` : `--no-${bool.long}`);
    } else if (dashes === "-" && flag.length === 1) {
      out.push(`-${flag}`, value);
    } else {
      out.push(arg);
    }
  }
  return out;
}
