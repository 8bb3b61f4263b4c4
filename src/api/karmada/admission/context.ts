/**
 * What the mutating rules need from outside: fresh identities and the time. Passed in so
 * tests are deterministic.
 */

export interface MutationContext {
  /** A UUID v4 for the permanent-id labels (`crypto.randomUUID` in production). */
  newUid(): string;
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Add the policy controllers' finalizers on create (upstream does; default true). A control
   * plane that runs no policy controller must not, or its policies could never be deleted.
   */
  policyFinalizers?: boolean;
  /**
   * The `tolerationSeconds` of the NoExecute tolerations every (Cluster)PropagationPolicy gets
   * for `cluster.karmada.io/not-ready` and `cluster.karmada.io/unreachable` (upstream v1.12
   * karmada-webhook's `--default-not-ready-toleration-seconds` and
   * `--default-unreachable-toleration-seconds`; 300 each).
   */
  defaultNotReadyTolerationSeconds?: number;
  defaultUnreachableTolerationSeconds?: number;
}

/** The default of both default toleration durations. */
export const DEFAULT_TOLERATION_SECONDS = 300;

/** The upstream feature gates these rules consult, with upstream's defaults. */
export interface AdmissionFeatures {
  /** Default or standardised Cluster resource models (Beta, on). */
  CustomizedClusterResourceModeling: boolean;
  /** ResourceBinding component-name checks (Alpha, off). */
  MultiplePodTemplatesScheduling: boolean;
}

export const DEFAULT_FEATURES: AdmissionFeatures = {
  CustomizedClusterResourceModeling: true,
  MultiplePodTemplatesScheduling: false,
};
