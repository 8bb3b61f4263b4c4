/**
 * Placement what-if: where templates would go, or what existing bindings would do, on a
 * changed copy of the live fleet. Nothing is written anywhere; the control plane's own
 * decisions are reused, not re-implemented (the scheduler core, the detector's policy matching
 * and binding spec, the taint manager's eviction rule, the resource interpreter).
 *
 * The API, for `karmadactl simulate` and the dashboard's backend:
 *
 *   const fleet = await loadFleet(client);            // fleet.ts: the caller's client, the caller's rights
 *   const changes = parseFleetChanges({ withoutCluster: ["member1"] }); // changes.ts, or build FleetChanges
 *   const report = await simulate(fleet, changes);    // replay: what existing bindings would do
 *   const report = await simulate(fleet, changes, {   // placement of the given templates
 *     manifests: parseManifests(yamlText, "upload"),  // manifests.ts
 *     // discovery: namespaced or not; undefined (not NotFound errors) when the kind is not served
 *     scopeOf: (apiVersion, kind) => client.resourceFor(apiVersion, kind).then((r) => r.namespaced, () => undefined),
 *   });
 *
 * `report` is a `SimulationReport` (types.ts), plain JSON. Bad input (an unknown cluster, an
 * invalid policy, unparsable text) throws `SimulationInputError` with a message saying what to
 * fix; the API errors of `loadFleet` are the server's.
 *
 * What it cannot know, and assumes: the controller manager's gates (`features`; upstream's
 * defaults unless told), the scheduler's options (`schedule`; its defaults), the API server's
 * admission options (policies get the default 300 s not-ready/unreachable tolerations).
 * Interpreter webhooks are not called (the report warns where one would answer), custom
 * resources get no CRD schema defaults, and a removed cluster is modelled as being deleted
 * (`karmadactl unjoin`), which is how the scheduler sees it: its workloads move at once. A
 * cluster that is merely lost goes NotReady and is tainted NoExecute first; `--taint
 * C=cluster.karmada.io/not-ready:NoExecute` with Failover on models that, tolerations included.
 */
import type { StoredObject } from "../api/meta.ts";
import { noExecuteTaints } from "../controllers/taint-manager.ts";
import { CustomizationSource } from "../interpreter/customizations.ts";
import { Interpreter } from "../interpreter/index.ts";
import { LuaEngine } from "../interpreter/lua/engine.ts";
import { nativeInterpreter } from "../interpreter/native/index.ts";
import { BUNDLED_CUSTOMIZATIONS } from "../interpreter/thirdparty/index.ts";
import { hookFor, hooksOf, objectKindOf } from "../interpreter/webhook/hooks.ts";
import type { ScheduleOptions } from "../scheduler/core/types.ts";
import { applyFleetChanges, SimulationInputError } from "./changes.ts";
import { crdScopes, type Manifest, sortManifests, storedTemplate } from "./manifests.ts";
import { replayBindings } from "./replay.ts";
import { type PreparedTemplate, placeTemplates } from "./templates.ts";
import type { Fleet, FleetChanges, SimulationFeatures, SimulationReport } from "./types.ts";

export interface SimulateOptions {
  /** Templates and policies to place (`-f`); absent: replay the existing bindings. */
  manifests?: readonly Manifest[];
  /** Gates of the controller manager; upstream's defaults (both off) when not said. */
  features?: SimulationFeatures;
  /** The namespace of templates and policies that name none (default `default`). */
  namespace?: string;
  /**
   * Whether a kind is namespaced, undefined when the control plane does not serve it
   * (discovery through the caller's client). Without it, a template's namespace is taken as given.
   */
  scopeOf?: (apiVersion: string, kind: string) => Promise<boolean | undefined>;
  /** The scheduler's options (`--plugins`, empty workload propagation), if not its defaults. */
  schedule?: ScheduleOptions;
  /** Milliseconds since the epoch (default: now); taints get it as `timeAdded`. */
  now?: number;
}

/** Runs the what-if. Throws `SimulationInputError` for input to fix. */
export async function simulate(
  fleet: Fleet,
  changes: FleetChanges,
  options: SimulateOptions = {},
): Promise<SimulationReport> {
  const now = options.now ?? Date.now();
  const features = {
    Failover: options.features?.Failover ?? false,
    PropagationPolicyPreemption: options.features?.PropagationPolicyPreemption ?? false,
  };
  const changed = applyFleetChanges(fleet.clusters, changes, now);
  const warnings = [...fleet.warnings];
  const addsNoExecute = changed.changed.some(
    (c) => noExecuteTaints(c.after.spec?.taints).length > noExecuteTaints(c.before.spec?.taints).length,
  );
  if (addsNoExecute && !features.Failover) {
    warnings.push(
      "NoExecute taints evict nothing: the controller manager's Failover gate is taken as off (upstream's default); say --feature-gates=Failover=true if yours runs with it",
    );
  }
  const report: SimulationReport = { changes: changed.descriptions, features, warnings };
  if (!options.manifests) {
    report.bindings = replayBindings(
      {
        resourceBindings: fleet.resourceBindings,
        clusterResourceBindings: fleet.clusterResourceBindings,
        clusters: changed.clusters,
        changed: changed.changed,
      },
      { now, failover: features.Failover, ...(options.schedule ? { schedule: options.schedule } : {}) },
    );
    return report;
  }

  const namespace = options.namespace ?? "default";
  const sorted = sortManifests(options.manifests, {
    namespace,
    now,
    livePropagationPolicies: fleet.propagationPolicies,
    liveClusterPropagationPolicies: fleet.clusterPropagationPolicies,
  });
  if (sorted.templates.length === 0) {
    throw new SimulationInputError(
      "the files hold no resource templates, only Karmada policies: give the templates to place with -f too",
    );
  }
  const replaced = <T extends StoredObject>(live: readonly T[], given: readonly T[]): T[] => [
    ...live.filter(
      (l) =>
        !given.some(
          (g) =>
            g.metadata.name === l.metadata.name &&
            (g.metadata.namespace ?? "") === (l.metadata.namespace ?? ""),
        ),
    ),
    ...given,
  ];
  const prepared = await prepareTemplates(sorted.templates, {
    namespace,
    scopeOf: options.scopeOf,
    crdScopes: crdScopes(options.manifests),
    customizations: replaced(fleet.customizations, sorted.customizations),
    webhookConfigurations: fleet.webhookConfigurations,
  });
  report.templates = placeTemplates(
    prepared,
    {
      propagationPolicies: replaced(fleet.propagationPolicies, sorted.propagationPolicies),
      clusterPropagationPolicies: replaced(
        fleet.clusterPropagationPolicies,
        sorted.clusterPropagationPolicies,
      ),
      overridePolicies: replaced(fleet.overridePolicies, sorted.overridePolicies),
      clusterOverridePolicies: replaced(fleet.clusterOverridePolicies, sorted.clusterOverridePolicies),
      fromFiles: new Set<StoredObject>([...sorted.propagationPolicies, ...sorted.clusterPropagationPolicies]),
      resourceBindings: fleet.resourceBindings,
      clusterResourceBindings: fleet.clusterResourceBindings,
      clusters: changed.clusters,
      changed: changed.changed,
    },
    {
      now,
      failover: features.Failover,
      preemption: features.PropagationPolicyPreemption,
      ...(options.schedule ? { schedule: options.schedule } : {}),
    },
  );
  return report;
}

interface PrepareOptions {
  namespace: string;
  scopeOf: SimulateOptions["scopeOf"];
  crdScopes: ReadonlyMap<string, boolean>;
  customizations: readonly StoredObject[];
  webhookConfigurations: readonly StoredObject[];
}

/**
 * Each template as stored (namespace, decode defaults) with its replicas, read by the
 * interpreter the controllers use (customizations, our bundled scripts, the native one);
 * interpreter webhooks are not called, and a template whose kind one answers says so.
 */
async function prepareTemplates(
  templates: readonly Manifest[],
  options: PrepareOptions,
): Promise<PreparedTemplate[]> {
  const engine = await LuaEngine.create();
  try {
    const customizations = new CustomizationSource("customization", engine);
    customizations.set(options.customizations);
    const bundled = new CustomizationSource("thirdparty", engine);
    bundled.set(BUNDLED_CUSTOMIZATIONS);
    const interpreter = new Interpreter(nativeInterpreter, [customizations, bundled]);
    const hooks = hooksOf(options.webhookConfigurations);
    const out: PreparedTemplate[] = [];
    for (const m of templates) {
      const { apiVersion, kind } = m.object;
      const key = `${apiVersion}|${kind}`;
      const namespaced =
        options.crdScopes.get(key) ??
        (options.scopeOf ? await options.scopeOf(apiVersion, kind) : !!m.object.metadata.namespace);
      if (namespaced === undefined) {
        out.push({
          source: m.source,
          object: m.object,
          failure: `the control plane does not serve ${kind} in ${apiVersion} (no matches for kind "${kind}" in version "${apiVersion}")`,
        });
        continue;
      }
      const object = storedTemplate(m.object, namespaced, options.namespace);
      const warnings: string[] = [];
      const webhook = hookFor(hooks, "InterpretReplica", objectKindOf(apiVersion, kind));
      // Customizations outrank webhooks; webhooks outrank our bundled scripts and the native interpreter.
      if (webhook && !customizations.handles("InterpretReplica", apiVersion, kind)) {
        warnings.push(
          `replicas read without the interpreter webhook ${webhook.uid}, which the control plane would ask (simulate calls no webhooks)`,
        );
      }
      let replicas: PreparedTemplate["replicas"];
      try {
        replicas = await interpreter.getReplicas(object);
      } catch (err) {
        // The detector would retry it, and never write its binding while this fails.
        out.push({
          source: m.source,
          object,
          failure: `the interpreter cannot read its replicas: ${(err as Error).message}`,
        });
        continue;
      }
      out.push({
        source: m.source,
        object,
        ...(replicas ? { replicas } : {}),
        ...(warnings.length ? { warnings } : {}),
      });
    }
    return out;
  } finally {
    engine.close();
  }
}
