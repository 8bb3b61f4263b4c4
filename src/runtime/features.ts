/**
 * Feature gates with upstream Karmada's names, stages and defaults (`pkg/features`), parsed
 * from `--feature-gates` the way component-base does: `Name=true,Other=false`, plus
 * `AllAlpha=` and `AllBeta=` that set every gate of that stage unless it is named itself.
 */

export type Stage = "Alpha" | "Beta" | "GA";

export const FEATURES = {
  Failover: { default: false, stage: "Beta" },
  GracefulEviction: { default: true, stage: "Beta" },
  PropagateDeps: { default: true, stage: "Beta" },
  CustomizedClusterResourceModeling: { default: true, stage: "Beta" },
  PropagationPolicyPreemption: { default: false, stage: "Alpha" },
  MultiClusterService: { default: false, stage: "Alpha" },
  ResourceQuotaEstimate: { default: false, stage: "Alpha" },
  StatefulFailoverInjection: { default: false, stage: "Alpha" },
  PriorityBasedScheduling: { default: true, stage: "Beta" },
  FederatedQuotaEnforcement: { default: false, stage: "Alpha" },
  MultiplePodTemplatesScheduling: { default: false, stage: "Alpha" },
  ControllerPriorityQueue: { default: true, stage: "Beta" },
  WorkloadAffinity: { default: false, stage: "Alpha" },
  SchedulingOvercommitProtection: { default: false, stage: "Alpha" },
} as const satisfies Record<string, { default: boolean; stage: Stage }>;

export type Feature = keyof typeof FEATURES;

const isFeature = (name: string): name is Feature => Object.hasOwn(FEATURES, name);

export class FeatureGates {
  readonly #set: ReadonlyMap<Feature, boolean>;

  constructor(set: Partial<Record<Feature, boolean>> = {}) {
    this.#set = new Map(Object.entries(set) as Array<[Feature, boolean]>);
  }

  enabled(name: Feature): boolean {
    return this.#set.get(name) ?? FEATURES[name].default;
  }

  /** The gates set away from their defaults, as `--feature-gates` would spell them. */
  toString(): string {
    return [...this.#set]
      .filter(([name, on]) => on !== FEATURES[name].default)
      .map(([name, on]) => `${name}=${on}`)
      .sort()
      .join(",");
  }

  /** The gates set explicitly (defaults left out). */
  settings(): Partial<Record<Feature, boolean>> {
    return Object.fromEntries(this.#set);
  }

  /** These gates with `more` on top (later settings win). */
  with(more: Partial<Record<Feature, boolean>>): FeatureGates {
    return new FeatureGates({ ...Object.fromEntries(this.#set), ...more });
  }

  /**
   * `--feature-gates` values (the flag may repeat). Throws an Error naming what to fix for an
   * unknown gate or a value that is not true/false.
   */
  static parse(values: readonly string[]): FeatureGates {
    const named: Partial<Record<Feature, boolean>> = {};
    const all: Partial<Record<Stage, boolean>> = {};
    for (const part of values.flatMap((v) => v.split(","))) {
      const item = part.trim();
      if (!item) continue;
      const eq = item.indexOf("=");
      if (eq < 0) throw new Error(`--feature-gates: missing bool value for ${item}`);
      const name = item.slice(0, eq).trim();
      const raw = item
        .slice(eq + 1)
        .trim()
        .toLowerCase();
      if (raw !== "true" && raw !== "false")
        throw new Error(
          `--feature-gates: invalid value of ${name}=${item.slice(eq + 1)}, want true or false`,
        );
      const on = raw === "true";
      if (name === "AllAlpha") all.Alpha = on;
      else if (name === "AllBeta") all.Beta = on;
      else if (isFeature(name)) named[name] = on;
      else
        throw new Error(
          `--feature-gates: unrecognized feature gate: ${name} (known: ${Object.keys(FEATURES).join(", ")})`,
        );
    }
    const set: Partial<Record<Feature, boolean>> = {};
    for (const [name, spec] of Object.entries(FEATURES) as Array<[Feature, (typeof FEATURES)[Feature]]>) {
      const byStage = all[spec.stage];
      if (byStage !== undefined) set[name] = byStage;
    }
    return new FeatureGates({ ...set, ...named });
  }
}

export const DEFAULT_FEATURE_GATES = new FeatureGates();

/**
 * What `karmada up` turns on so that the documented walk-throughs run as they are written:
 * cluster failover, policy preemption and the stateful failover state relay (upstream's
 * local-up turns every gate on). `--feature-gates` on `up` goes on top.
 */
export const UP_FEATURE_GATES = new FeatureGates({
  Failover: true,
  PropagationPolicyPreemption: true,
  StatefulFailoverInjection: true,
});
