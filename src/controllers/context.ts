/**
 * What the controller manager hands every controller: the control-plane client, shared
 * informers, member connections, an event recorder, a clock, options and a logger.
 */
import type { StoredObject } from "../api/meta.ts";
import type { Client } from "../client/client.ts";
import type { Interpreter } from "../interpreter/index.ts";
import type { Logger } from "../log.ts";
import type { EventRecorder } from "../runtime/events.ts";
import { DEFAULT_FEATURE_GATES, type FeatureGates } from "../runtime/features.ts";
import type { InformerFactory } from "../runtime/informer.ts";
import type { ScheduleOptions } from "../scheduler/core/types.ts";
import type { MemberWatches } from "./member-watches.ts";

/** A connection to one member cluster's API server. */
export interface MemberConnection {
  client: Client;
  /**
   * GETs a non-resource path (`/readyz`, `/version`, discovery). Throws on transport errors,
   * and when no answer came within `timeoutMs` (default: the connection's own timeout).
   */
  getRaw(path: string, timeoutMs?: number): Promise<{ status: number; body: string }>;
}

export interface MemberConnections {
  /** A connection built from the Cluster's endpoint and credentials secret (cached until they change). */
  connect(cluster: StoredObject): Promise<MemberConnection>;
  forget(clusterName: string): void;
}

export interface ControllerOptions {
  /** `--cluster-status-update-frequency` (10 s). */
  clusterStatusUpdateFrequencyMs: number;
  /** `--cluster-success-threshold` (30 s): how long a recovery must last before Ready turns True. */
  clusterSuccessThresholdMs: number;
  /** `--cluster-failure-threshold` (30 s): how long a failure must last before Ready turns False. */
  clusterFailureThresholdMs: number;
  /** `--cluster-monitor-period` (5 s). */
  clusterMonitorPeriodMs: number;
  /** `--cluster-monitor-grace-period` (40 s). */
  clusterMonitorGracePeriodMs: number;
  /** `--cluster-startup-grace-period` (60 s). */
  clusterStartupGracePeriodMs: number;
  /** `--cluster-lease-duration` (40 s) and `--cluster-lease-renew-interval-fraction` (0.25). */
  clusterLeaseDurationMs: number;
  clusterLeaseRenewFraction: number;
  /** Timeout of one health probe of a member. */
  clusterProbeTimeoutMs: number;
  /** `--failover-eviction-timeout` (5 m): how long Ready must be False/Unknown before the NoExecute taint (gate Failover). */
  failoverEvictionTimeoutMs: number;
  /** `--enable-taint-manager` (true): evict workloads from clusters with NoExecute taints (gate Failover). */
  enableTaintManager: boolean;
  /** `--resource-eviction-rate` (0.5): taint evictions per second; 0 means one per 30 minutes. */
  resourceEvictionRate: number;
  /** `--no-execute-taint-eviction-purge-mode` (Gracefully): a taint eviction's purge mode when the policy names none. */
  noExecuteTaintEvictionPurgeMode: "Directly" | "Gracefully";
  /** `--graceful-eviction-timeout` (10 m): how long an eviction task without gracePeriodSeconds lasts at most. */
  gracefulEvictionTimeoutMs: number;
  /** `--failover-shadow-mode` (false, ours): the taint manager records the evictions it would make, and makes none. */
  failoverShadowMode: boolean;
  /** The agent's `--cert-rotation-checking-interval` (5 m). */
  certRotationCheckingIntervalMs: number;
  /** The agent's `--cert-rotation-remaining-time-threshold` (0.2 of the certificate's lifetime). */
  certRotationRemainingTimeThreshold: number;
  /** The agent's `--karmada-kubeconfig-namespace`: where its control-plane kubeconfig Secret is (karmada-system). */
  karmadaKubeconfigNamespace: string;
  /** Told when the agent's certificate was renewed, so the running agent uses it at once. */
  onAgentCertificateRotated?: (cert: { certPem: string; keyPem: string }) => void;
  /** `--feature-gates`. */
  features: FeatureGates;
  /** The scheduler's `--plugins` and `--enable-empty-workload-propagation`. */
  schedule: ScheduleOptions;
}

export const DEFAULT_CONTROLLER_OPTIONS: ControllerOptions = {
  clusterStatusUpdateFrequencyMs: 10_000,
  clusterSuccessThresholdMs: 30_000,
  clusterFailureThresholdMs: 30_000,
  clusterMonitorPeriodMs: 5_000,
  clusterMonitorGracePeriodMs: 40_000,
  clusterStartupGracePeriodMs: 60_000,
  clusterLeaseDurationMs: 40_000,
  clusterLeaseRenewFraction: 0.25,
  clusterProbeTimeoutMs: 5_000,
  failoverEvictionTimeoutMs: 300_000,
  certRotationCheckingIntervalMs: 300_000,
  certRotationRemainingTimeThreshold: 0.2,
  karmadaKubeconfigNamespace: "karmada-system",
  enableTaintManager: true,
  resourceEvictionRate: 0.5,
  noExecuteTaintEvictionPurgeMode: "Gracefully",
  gracefulEvictionTimeoutMs: 600_000,
  failoverShadowMode: false,
  features: DEFAULT_FEATURE_GATES,
  schedule: {},
};

export interface ControllerContext {
  client: Client;
  informers: InformerFactory;
  members: MemberConnections;
  /** Watches of Karmada's objects in members, shared by work status and execution. */
  memberWatches: MemberWatches;
  /** An event recorder whose events name `component` as their source (upstream's controller name). */
  recorder(component: string): EventRecorder;
  log: Logger;
  now(): number;
  options: ControllerOptions;
  /** The resource interpreter: customizations, webhooks, bundled scripts, then native. */
  interpreter: Interpreter;
}
