import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { CONTROLLER_OPTIONS, controllerOptions, FAILOVER_OPTIONS } from "../controllers/options.ts";
import { DEFAULT_FEATURE_GATES } from "../runtime/features.ts";
import { healthProbeOptions } from "../runtime/health-options.ts";
import { LEADER_ELECTION_OPTIONS } from "../runtime/leader-options.ts";
import {
  addOptions,
  argsFor,
  bool,
  count,
  defaultsOf,
  duration,
  list,
  mergeOptions,
  number,
  OptionError,
  type OptionTable,
  oneOf,
  optionsFrom,
  optionTable,
  pickValues,
  port,
  text,
  toggle,
} from "../runtime/options.ts";
import * as c from "./component-options.ts";
import { DEFAULT_LEADER_ELECTION } from "./controller-manager.ts";

const TABLE = optionTable({
  periodMs: { flag: "--period", type: duration, help: "how often", default: "5s" },
  workers: { flag: "--workers", type: count, help: "at once", default: 2 },
  enabled: { flag: "--enabled", type: bool, help: "on", default: true, negation: "off" },
  shadow: { flag: "--shadow", type: bool, help: "pretend", default: false },
  insecure: { flag: "--insecure", type: toggle, help: "plain HTTP", default: false },
  rate: { flag: "--rate", type: number({ min: 0 }), help: "per second", default: 0.5 },
  mode: {
    flag: "--no-execute-mode",
    type: oneOf(["Directly", "Gracefully"]),
    arg: "<mode>",
    help: "purge mode",
    default: "Gracefully",
  },
  modes: { flag: "--modes", type: list, arg: "<modes>", help: "which", default: "RBAC" },
  namespace: { flag: "--namespace", type: text, arg: "<ns>", help: "where", default: "karmada-system" },
  name: { flag: "--name", type: text, arg: "<name>", help: "who" },
  secret: { flag: "--secret", type: text, arg: "<s>", help: "not shown", hidden: true },
});

/** What commander collects from `args` for the table's options. */
function parse(table: OptionTable, args: string[]): Record<string, unknown> {
  const cmd = addOptions(new Command("test").exitOverride(), table);
  cmd.parse(args, { from: "user" });
  return cmd.opts();
}

const read = (args: string[]) => optionsFrom(TABLE, parse(TABLE, args));

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("value types", () => {
  it.each([
    { type: duration, text: "1m30s", value: 90_000 },
    { type: duration, text: "0", value: 0 },
    { type: count, text: "7", value: 7 },
    { type: port, text: "65535", value: 65535 },
    { type: bool, text: "false", value: false },
    { type: number({ min: 0, max: 1, exclusive: true }), text: "0.25", value: 0.25 },
    { type: number(), text: "-1e3", value: -1000 },
    { type: list, text: "a,,b", value: ["a", "b"] },
  ])("$text", ({ type, text, value }) => {
    expect((type.parse as (t: string) => unknown)(text)).toEqual(value);
  });

  it.each([
    { type: duration, text: "5d", why: "must be a duration such as 500ms, 10s, 2m, 1h or 24h0m0s" },
    { type: duration, text: "-1s", why: "must not be negative" },
    { type: count, text: "1.5", why: "must be a non-negative integer" },
    { type: port, text: "65536", why: "must be a port number between 0 and 65535" },
    { type: bool, text: "yes", why: "must be true or false" },
    { type: number({ min: 0 }), text: "-1", why: "must be a non-negative number" },
    { type: number({ min: 0 }), text: " ", why: "must be a non-negative number" },
    { type: number({ min: 0, max: 1, exclusive: true }), text: "1", why: "must be between 0 and 1" },
    { type: number({ min: 0, max: 1, exclusive: true }), text: "abc", why: "must be between 0 and 1" },
    { type: number({ min: 1, max: 3 }), text: "4", why: "must be from 1 to 3" },
    { type: number({ min: 1 }), text: "0", why: "must be at least 1" },
    { type: number({ max: 1, exclusive: true }), text: "1", why: "must be less than 1" },
    { type: oneOf(["a", "b"]), text: "c", why: "must be one of a, b" },
  ])("$text is refused: $why", ({ type, text, why }) => {
    expect(() => type.parse(text)).toThrow(why);
  });

  it("every value reads back from its format", () => {
    const values = { periodMs: 1500.5, workers: 3, enabled: false, rate: 0.125, mode: "Directly" as const };
    for (const [field, value] of Object.entries(values)) {
      const type = TABLE[field as keyof typeof values].type as {
        parse(t: string): unknown;
        format(v: unknown): string;
      };
      expect(type.parse(type.format(value))).toEqual(value);
    }
  });
});

describe("a table's commander options", () => {
  const help = addOptions(new Command("test").configureHelp({ helpWidth: 500 }), TABLE).helpInformation();

  it.each([
    ["--period <duration>", "how often (default: 5s)"],
    ["--workers <n>", "at once (default: 2)"],
    ["--enabled [bool]", "on (default: true)"],
    ["--no-enabled", "off"],
    ["--insecure", "plain HTTP (default: false)"],
    ["--rate <n>", "per second (default: 0.5)"],
    ["--no-execute-mode <mode>", 'purge mode (choices: "Directly", "Gracefully", default: "Gracefully")'],
    ["--modes <modes>", 'which (default: ["RBAC"])'],
    ["--namespace <ns>", 'where (default: "karmada-system")'],
    ["--name <name>", "who"],
  ])("help shows %s", (flag, description) => {
    expect(help).toMatch(new RegExp(`^  ${escapeRegExp(flag)} +${escapeRegExp(description)}$`, "m"));
  });

  it("hidden options are accepted but not shown", () => {
    expect(help).not.toContain("--secret");
    expect(read(["--secret", "x"]).secret).toBe("x");
  });
});

describe("optionsFrom", () => {
  it("gives the defaults for flags left out, read by their types", () => {
    expect(read([])).toEqual({
      periodMs: 5_000,
      workers: 2,
      enabled: true,
      shadow: false,
      insecure: false,
      rate: 0.5,
      mode: "Gracefully",
      modes: ["RBAC"],
      namespace: "karmada-system",
    });
  });

  it("reads each flag by its type", () => {
    const values = read([
      "--period=1m",
      "--workers",
      "9",
      "--enabled=false",
      "--shadow",
      "--insecure",
      "--rate=0",
      "--no-execute-mode=Directly",
      "--name",
      "member1",
    ]);
    expect(values).toMatchObject({
      periodMs: 60_000,
      workers: 9,
      enabled: false,
      shadow: true,
      insecure: true,
      rate: 0,
      mode: "Directly",
      name: "member1",
    });
  });

  it("--no-<flag> sets a negatable boolean false", () => {
    expect(read(["--no-enabled"]).enabled).toBe(false);
    expect(read(["--enabled"]).enabled).toBe(true);
  });

  it("a repeated list adds up, and replaces its default", () => {
    expect(read(["--modes", "AlwaysAllow"]).modes).toEqual(["AlwaysAllow"]);
    expect(read(["--modes", "a,b", "--modes", "c"]).modes).toEqual(["a", "b", "c"]);
  });

  it("freezes what it gives", () => {
    const values = read(["--modes", "a"]);
    expect(Object.isFrozen(values)).toBe(true);
    expect(Object.isFrozen(values.modes)).toBe(true);
  });

  it.each([
    [["--period", "soon"], "--period soon: must be a duration such as 500ms, 10s, 2m, 1h or 24h0m0s"],
    [["--workers=-1"], "--workers -1: must be a non-negative integer"],
    [["--enabled=maybe"], "--enabled maybe: must be true or false"],
    [["--no-execute-mode", "Later"], "--no-execute-mode Later: must be one of Directly, Gracefully"],
    [["--rate="], '--rate "": must be a non-negative number'],
  ])("%j: one error naming the flag", (args, message) => {
    let error: unknown;
    try {
      read(args);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(OptionError);
    expect((error as OptionError).message).toBe(message);
    expect((error as OptionError).flag).toBe(args[0]!.split("=")[0]);
  });

  it("refuses a required flag left out", () => {
    const table = optionTable({ name: { flag: "--name", type: text, help: "who", required: true } });
    expect(() => optionsFrom(table, {})).toThrow("--name is required");
    expect(optionsFrom(table, { name: "x" })).toEqual({ name: "x" });
  });
});

describe("defaultsOf", () => {
  it("gives the options that have a default, frozen", () => {
    const defaults = defaultsOf(TABLE);
    expect(defaults).toEqual(optionsFrom(TABLE, {}));
    expect(Object.isFrozen(defaults)).toBe(true);
  });

  it("the controllers' options have upstream's defaults", () => {
    expect(defaultsOf(CONTROLLER_OPTIONS)).toEqual({
      clusterStatusUpdateFrequencyMs: 10_000,
      clusterFailureThresholdMs: 30_000,
      clusterSuccessThresholdMs: 30_000,
      clusterMonitorPeriodMs: 5_000,
      clusterMonitorGracePeriodMs: 40_000,
      clusterStartupGracePeriodMs: 60_000,
      clusterLeaseDurationMs: 40_000,
      clusterLeaseRenewFraction: 0.25,
      failoverEvictionTimeoutMs: 300_000,
      enableTaintManager: true,
      resourceEvictionRate: 0.5,
      noExecuteTaintEvictionPurgeMode: "Gracefully",
      gracefulEvictionTimeoutMs: 600_000,
      failoverShadowMode: false,
      certRotationCheckingIntervalMs: 300_000,
      certRotationRemainingTimeThreshold: 0.2,
      karmadaKubeconfigNamespace: "karmada-system",
    });
  });

  it("controllerOptions adds the settings no flag sets, then what it is given", () => {
    const options = controllerOptions({ clusterMonitorPeriodMs: 1 });
    expect(options).toMatchObject({
      clusterMonitorPeriodMs: 1,
      clusterMonitorGracePeriodMs: 40_000,
      clusterProbeTimeoutMs: 5_000,
      features: DEFAULT_FEATURE_GATES,
      schedule: {},
    });
    expect(Object.isFrozen(options)).toBe(true);
  });

  it("the controller manager's leader election defaults are the flags'", () => {
    expect(DEFAULT_LEADER_ELECTION).toMatchObject(defaultsOf(LEADER_ELECTION_OPTIONS));
  });

  it("every component table's defaults are values of their types", () => {
    const tables: OptionTable[] = [
      CONTROLLER_OPTIONS,
      LEADER_ELECTION_OPTIONS,
      healthProbeOptions(":10357"),
      c.APISERVER_OPTIONS,
      c.UP_OPTIONS,
      c.SCHEDULER_OPTIONS,
      c.OPERATOR_OPTIONS,
      c.AGENT_OPTIONS,
      c.MEMBER_SIM_OPTIONS,
      c.TOLERATION_OPTIONS,
      c.REQUEST_TIMEOUT_OPTIONS,
      c.logLevelOptions("warn"),
    ];
    for (const table of tables) expect(() => defaultsOf(table)).not.toThrow();
    expect(defaultsOf(c.APISERVER_OPTIONS)).toMatchObject({
      etcdCompactionInterval: 300_000,
      minRequestTimeout: 1800,
      clusterSigningDuration: 365 * 24 * 3_600_000,
      authorizationMode: ["RBAC"],
    });
    expect(defaultsOf(c.REQUEST_TIMEOUT_OPTIONS)).toEqual({ requestTimeout: 60_000 });
  });
});

describe("argsFor", () => {
  it("writes flags that read back to the same values", () => {
    const values = read(["--period=90s", "--enabled=false", "--insecure", "--modes=a,b", "--name=x"]);
    const args = argsFor(TABLE, values);
    expect(args).toContain("--period=90000ms");
    expect(args).toContain("--enabled=false");
    expect(args).toContain("--insecure");
    expect(read(args)).toEqual(values);
  });

  it("names a switch only when it is on", () => {
    expect(argsFor(TABLE, { insecure: false, workers: 1 })).toEqual(["--workers=1"]);
  });

  it("hands on the failover flags as the controller manager reads them", () => {
    const values = optionsFrom(FAILOVER_OPTIONS, parse(FAILOVER_OPTIONS, ["--failover-eviction-timeout=1m"]));
    expect(argsFor(FAILOVER_OPTIONS, values)).toEqual([
      "--failover-eviction-timeout=60000ms",
      "--enable-taint-manager=true",
      "--resource-eviction-rate=0.5",
      "--no-execute-taint-eviction-purge-mode=Gracefully",
      "--graceful-eviction-timeout=600000ms",
      "--failover-shadow-mode=false",
    ]);
    expect(optionsFrom(FAILOVER_OPTIONS, parse(FAILOVER_OPTIONS, argsFor(FAILOVER_OPTIONS, values)))).toEqual(
      values,
    );
  });
});

describe("merging and picking", () => {
  it("merges tables in order, refusing a field or flag declared twice", () => {
    const merged = mergeOptions(LEADER_ELECTION_OPTIONS, FAILOVER_OPTIONS);
    expect(Object.keys(merged)).toEqual([
      ...Object.keys(LEADER_ELECTION_OPTIONS),
      ...Object.keys(FAILOVER_OPTIONS),
    ]);
    expect(() => mergeOptions(FAILOVER_OPTIONS, FAILOVER_OPTIONS)).toThrow(
      "two options fill the field failoverEvictionTimeoutMs",
    );
    const other = optionTable({ other: { flag: "--leader-elect", type: bool, help: "again" } });
    expect(() => mergeOptions(LEADER_ELECTION_OPTIONS, other)).toThrow("two options declare --leader-elect");
  });

  it("picks the values a table declares", () => {
    const merged = mergeOptions(LEADER_ELECTION_OPTIONS, FAILOVER_OPTIONS);
    const values = optionsFrom(merged, parse(merged, ["--no-leader-elect", "--failover-shadow-mode"]));
    expect(pickValues(values, LEADER_ELECTION_OPTIONS)).toEqual({
      enabled: false,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      namespace: "karmada-system",
    });
    expect(pickValues(values, CONTROLLER_OPTIONS)).toEqual(
      optionsFrom(FAILOVER_OPTIONS, { failoverShadowMode: true }),
    );
  });
});

describe("a table's defaults", () => {
  it("are checked by their types, written as text or as values", () => {
    const table = optionTable({
      fraction: {
        flag: "--fraction",
        type: number({ min: 0, max: 1, exclusive: true }),
        help: "f",
        default: 2,
      },
    });
    expect(() => defaultsOf(table)).toThrow("--fraction 2: must be between 0 and 1");
    const period = optionTable({
      periodMs: { flag: "--period", type: duration, help: "p", default: "soon" },
    });
    expect(() => defaultsOf(period)).toThrow("--period soon: must be a duration");
  });
});
