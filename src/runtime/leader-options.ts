/**
 * Upstream's leader-election flags, shared by the controller manager, the scheduler, the agent
 * and the operator (each names its own Lease).
 */
import { bool, duration, type OptionValues, optionTable, text } from "./options.ts";

export const LEADER_ELECTION_OPTIONS = optionTable({
  enabled: {
    flag: "--leader-elect",
    type: bool,
    help: "run the controllers only while holding the leader Lease (--leader-elect=false: at once, a single replica)",
    default: true,
    negation: "run the controllers at once (a single replica)",
  },
  leaseDurationMs: {
    flag: "--leader-elect-lease-duration",
    type: duration,
    help: "how long a standby waits before taking the Lease",
    default: "15s",
  },
  renewDeadlineMs: {
    flag: "--leader-elect-renew-deadline",
    type: duration,
    help: "how long the leader retries renewing before it gives up",
    default: "10s",
  },
  retryPeriodMs: {
    flag: "--leader-elect-retry-period",
    type: duration,
    help: "time between acquire and renew attempts",
    default: "2s",
  },
  namespace: {
    flag: "--leader-elect-resource-namespace",
    type: text,
    arg: "<ns>",
    help: "namespace of the leader Lease",
    default: "karmada-system",
  },
});

/** What the flags say; the component adds the Lease's name (and maybe an identity). */
export type LeaderElectionOptions = OptionValues<typeof LEADER_ELECTION_OPTIONS>;
