/**
 * The native interpreter: upstream's built-in handlers for Kubernetes kinds, keyed by exact
 * group/version/kind. Every operation answers `undefined` for a kind it has no handler for.
 *
 * Operations throw where upstream's return an error, so the caller records the failure and
 * retries: Retain when the retain-replicas label is set but the member has no `spec.replicas`,
 * or a Job's observed selector labels are not strings; ReflectStatus when a workload's
 * `resourcetemplate.karmada.io/generation` annotation is missing or not an integer.
 */
import type { Health, InterpreterOperation, ResourceInterpreter } from "../types.ts";
import { AGGREGATORS } from "./aggregate-status.ts";
import { DEPENDENCY_READERS } from "./dependencies.ts";
import { HEALTH_RULES } from "./health.ts";
import { gvkOf } from "./kinds.ts";
import { reflectNativeStatus } from "./reflect-status.ts";
import type { RequirementOptions } from "./replica-requirements.ts";
import { REPLICA_READERS, REPLICA_REVISERS } from "./replicas.ts";
import { RETAINERS } from "./retain.ts";

export interface NativeInterpreterOptions {
  /** Stamps the conditions a Job's aggregation adds. */
  now?: () => Date;
  /** The ResourceQuotaEstimate feature gate (alpha, default off): replica requirements carry `priorityClassName`. */
  resourceQuotaEstimate?: boolean;
}

export function createNativeInterpreter(options: NativeInterpreterOptions = {}): ResourceInterpreter {
  const now = options.now ?? (() => new Date());
  const requirementOptions: RequirementOptions =
    options.resourceQuotaEstimate === undefined
      ? {}
      : { resourceQuotaEstimate: options.resourceQuotaEstimate };
  return {
    getReplicas: (obj) => REPLICA_READERS[gvkOf(obj)]?.(obj, requirementOptions),
    reviseReplica: (obj, replicas) => REPLICA_REVISERS[gvkOf(obj)]?.(obj, replicas),
    retain: (desired, observed) => RETAINERS[gvkOf(desired)]?.(desired, observed),
    // A specialised reflector with nothing to record (null) cannot be told apart from "no hook" here;
    // callers that need the difference use reflectNativeStatus (reflect-status.ts).
    reflectStatus: (obj) => reflectNativeStatus(obj),
    interpretHealth: (obj): Health | undefined => {
      const healthy = HEALTH_RULES[gvkOf(obj)]?.(obj);
      return healthy === undefined ? undefined : healthy ? "Healthy" : "Unhealthy";
    },
    aggregateStatus: (template, items) => AGGREGATORS[gvkOf(template)]?.(template, items, { now }),
    getDependencies: (obj) => DEPENDENCY_READERS[gvkOf(obj)]?.(obj),
    handles: (operation, apiVersion, kind) => {
      const gvk = gvkOf({ apiVersion, kind });
      const tables: Partial<Record<InterpreterOperation, Record<string, unknown>>> = {
        InterpretReplica: REPLICA_READERS,
        ReviseReplica: REPLICA_REVISERS,
        Retain: RETAINERS,
        InterpretHealth: HEALTH_RULES,
        AggregateStatus: AGGREGATORS,
        InterpretDependency: DEPENDENCY_READERS,
      };
      const table = tables[operation];
      // Status is reflected for every kind (the whole `.status` when nothing specialised).
      if (operation === "InterpretStatus") return true;
      return table !== undefined && table[gvk] !== undefined;
    },
  };
}

/** The native interpreter with the default feature gates and the wall clock. */
export const nativeInterpreter: ResourceInterpreter = createNativeInterpreter();
