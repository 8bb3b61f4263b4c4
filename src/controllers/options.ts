/**
 * The controllers' options: the flags that set them (upstream's names and defaults, declared
 * once here), grouped as the components take them, and the rest, which no flag sets.
 */
import { DEFAULT_FEATURE_GATES, type FeatureGates } from "../runtime/features.ts";
import {
  bool,
  defaultsOf,
  duration,
  number,
  type OptionValues,
  oneOf,
  optionTable,
  pickOptions,
  text,
} from "../runtime/options.ts";
import type { ScheduleOptions } from "../scheduler/core/types.ts";

const fraction = number({ min: 0, max: 1, exclusive: true });

export const CONTROLLER_OPTIONS = optionTable({
  clusterStatusUpdateFrequencyMs: {
    flag: "--cluster-status-update-frequency",
    type: duration,
    help: "how often member health and status are collected",
    default: "10s",
  },
  /** How long a failure must last before Ready turns False. */
  clusterFailureThresholdMs: {
    flag: "--cluster-failure-threshold",
    type: duration,
    help: "how long a member must fail before it is NotReady",
    default: "30s",
  },
  /** How long a recovery must last before Ready turns True. */
  clusterSuccessThresholdMs: {
    flag: "--cluster-success-threshold",
    type: duration,
    help: "how long a member must recover before it is Ready again",
    default: "30s",
  },
  clusterMonitorPeriodMs: {
    flag: "--cluster-monitor-period",
    type: duration,
    help: "how often cluster leases are checked",
    default: "5s",
  },
  clusterMonitorGracePeriodMs: {
    flag: "--cluster-monitor-grace-period",
    type: duration,
    help: "how long a silent cluster stays Ready",
    default: "40s",
  },
  clusterStartupGracePeriodMs: {
    flag: "--cluster-startup-grace-period",
    type: duration,
    help: "grace for a newly joined cluster",
    default: "1m",
  },
  clusterLeaseDurationMs: {
    flag: "--cluster-lease-duration",
    type: duration,
    help: "how long the cluster's Lease is valid",
    default: "40s",
  },
  clusterLeaseRenewFraction: {
    flag: "--cluster-lease-renew-interval-fraction",
    type: fraction,
    arg: "<f>",
    help: "renew the Lease every duration × f",
    default: 0.25,
  },
  /** Gate Failover: how long Ready must be False/Unknown before the NoExecute taint. */
  failoverEvictionTimeoutMs: {
    flag: "--failover-eviction-timeout",
    type: duration,
    help: "how long Ready must be False or Unknown before a cluster gets the NoExecute taint (gate Failover)",
    default: "5m",
  },
  enableTaintManager: {
    flag: "--enable-taint-manager",
    type: bool,
    help: "evict workloads from clusters with NoExecute taints they do not tolerate (gate Failover)",
    default: true,
  },
  /** Taint evictions per second; 0 means one per 30 minutes. */
  resourceEvictionRate: {
    flag: "--resource-eviction-rate",
    type: number({ min: 0 }),
    help: "taint evictions per second (0: one per 30 minutes)",
    default: 0.5,
  },
  /** A taint eviction's purge mode when the policy names none. */
  noExecuteTaintEvictionPurgeMode: {
    flag: "--no-execute-taint-eviction-purge-mode",
    type: oneOf(["Directly", "Gracefully"]),
    arg: "<mode>",
    help: "purge mode of a taint eviction when the policy sets no failover.cluster behaviour",
    default: "Gracefully",
  },
  /** How long an eviction task without gracePeriodSeconds lasts at most. */
  gracefulEvictionTimeoutMs: {
    flag: "--graceful-eviction-timeout",
    type: duration,
    help: "how long the old copy of an evicted workload stays at most when the new one does not become healthy",
    default: "10m",
  },
  /** Ours: the taint manager records the evictions it would make, and makes none. */
  failoverShadowMode: {
    flag: "--failover-shadow-mode",
    type: bool,
    help: "record the evictions the taint manager would make (EvictionShadowed events) without making them",
    default: false,
  },
  certRotationCheckingIntervalMs: {
    flag: "--cert-rotation-checking-interval",
    type: duration,
    help: "how often certRotation checks the agent's certificate (with --controllers=*,certRotation)",
    default: "5m",
  },
  /** A fraction of the certificate's whole lifetime. */
  certRotationRemainingTimeThreshold: {
    flag: "--cert-rotation-remaining-time-threshold",
    type: fraction,
    arg: "<f>",
    help: "certRotation renews the certificate once its remaining lifetime is at most this fraction of the whole",
    default: 0.2,
  },
  /** Where the agent's control-plane kubeconfig Secret is, in the member. */
  karmadaKubeconfigNamespace: {
    flag: "--karmada-kubeconfig-namespace",
    type: text,
    arg: "<ns>",
    help: "member namespace of the Secret karmada-kubeconfig holding the agent's control-plane kubeconfig (read without --karmada-kubeconfig, rotated by certRotation)",
    default: "karmada-system",
  },
});

/** Member health and status collection: `up`, `controller-manager` and `agent`. */
export const CLUSTER_STATUS_OPTIONS = pickOptions(CONTROLLER_OPTIONS, [
  "clusterStatusUpdateFrequencyMs",
  "clusterFailureThresholdMs",
  "clusterSuccessThresholdMs",
]);

/** Cluster leases watched by the controller manager. */
export const CLUSTER_MONITOR_OPTIONS = pickOptions(CONTROLLER_OPTIONS, [
  "clusterMonitorPeriodMs",
  "clusterMonitorGracePeriodMs",
  "clusterStartupGracePeriodMs",
]);

/** Cluster failover, taint-based eviction (upstream v1.12's, plus our shadow mode): `up` and `controller-manager`. */
export const FAILOVER_OPTIONS = pickOptions(CONTROLLER_OPTIONS, [
  "failoverEvictionTimeoutMs",
  "enableTaintManager",
  "resourceEvictionRate",
  "noExecuteTaintEvictionPurgeMode",
  "gracefulEvictionTimeoutMs",
  "failoverShadowMode",
]);

/** The Lease the agent renews for its cluster. */
export const CLUSTER_LEASE_OPTIONS = pickOptions(CONTROLLER_OPTIONS, [
  "clusterLeaseDurationMs",
  "clusterLeaseRenewFraction",
]);

/** The agent's certificate rotation. */
export const CERT_ROTATION_OPTIONS = pickOptions(CONTROLLER_OPTIONS, [
  "certRotationCheckingIntervalMs",
  "certRotationRemainingTimeThreshold",
]);

/** Where the agent finds its control-plane kubeconfig. */
export const AGENT_KUBECONFIG_OPTIONS = pickOptions(CONTROLLER_OPTIONS, ["karmadaKubeconfigNamespace"]);

export interface ControllerOptions extends OptionValues<typeof CONTROLLER_OPTIONS> {
  /** Timeout of one health probe of a member. */
  readonly clusterProbeTimeoutMs: number;
  /** Told when the agent's certificate was renewed, so the running agent uses it at once. */
  readonly onAgentCertificateRotated?: (cert: { certPem: string; keyPem: string }) => void;
  /** `--feature-gates`. */
  readonly features: FeatureGates;
  /** The scheduler's `--plugins` and `--enable-empty-workload-propagation`. */
  readonly schedule: ScheduleOptions;
}

/** The options controllers run with: the defaults of every flag and setting, then `given`. */
export function controllerOptions(given: Partial<ControllerOptions> = {}): ControllerOptions {
  return Object.freeze({
    ...defaultsOf(CONTROLLER_OPTIONS),
    clusterProbeTimeoutMs: 5_000,
    features: DEFAULT_FEATURE_GATES,
    schedule: {},
    ...given,
  });
}
