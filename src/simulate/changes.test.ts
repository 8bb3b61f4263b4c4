import { describe, expect, it } from "vitest";
import { cluster } from "../../test/support/scheduler-fixtures.ts";
import { TAINT_UNSCHEDULABLE } from "../cli/commands/cordon.ts";
import {
  applyFleetChanges,
  CORDON_TAINT,
  parseFleetChanges,
  parseLabelFlag,
  parseTaintFlag,
  SimulationInputError,
} from "./changes.ts";

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const STAMP = "2026-01-02T03:04:05Z";

describe("parseTaintFlag", () => {
  it.each([
    ["m1=dedicated=gpu:NoSchedule", { cluster: "m1", key: "dedicated", value: "gpu", effect: "NoSchedule" }],
    ["m1=example.com/x:NoExecute", { cluster: "m1", key: "example.com/x", effect: "NoExecute" }],
    ["m1=k:PreferNoSchedule", { cluster: "m1", key: "k", effect: "PreferNoSchedule" }],
    ["m1=k:NoExecute-", { cluster: "m1", key: "k", effect: "NoExecute", remove: true }],
    ["m1=k-", { cluster: "m1", key: "k", effect: "", remove: true }],
  ])("%s", (spec, want) => {
    expect(parseTaintFlag(spec)).toEqual(want);
  });

  it.each([
    ["x", '--taint "x": expected CLUSTER=KEY[=VALUE]:EFFECT, CLUSTER=KEY:EFFECT- or CLUSTER=KEY-'],
    [
      "=k:NoSchedule",
      '--taint "=k:NoSchedule": expected CLUSTER=KEY[=VALUE]:EFFECT, CLUSTER=KEY:EFFECT- or CLUSTER=KEY-',
    ],
    ["m1=k", '--taint "m1=k": an effect is required'],
    [
      "m1=k:Sometimes",
      '--taint "m1=k:Sometimes": effect "Sometimes" is not one of NoSchedule, PreferNoSchedule, NoExecute',
    ],
    ["m1=a:b:NoSchedule", "--taint \"m1=a:b:NoSchedule\": more than one ':'"],
    ["m1=k=v=w:NoSchedule", "--taint \"m1=k=v=w:NoSchedule\": more than one '=' after the cluster name"],
    ["m1=k=v:NoSchedule-", '--taint "m1=k=v:NoSchedule-": a removal names no value'],
    ["m1=bad key:NoSchedule", '--taint "m1=bad key:NoSchedule": key "bad key": name part must consist of'],
  ])("refuses %s", (spec, message) => {
    expect(() => parseTaintFlag(spec)).toThrow(SimulationInputError);
    expect(() => parseTaintFlag(spec)).toThrow(message);
  });
});

describe("parseLabelFlag", () => {
  it.each([
    ["m1=region=eu", { cluster: "m1", key: "region", value: "eu" }],
    ["m1=topology.kubernetes.io/zone=a", { cluster: "m1", key: "topology.kubernetes.io/zone", value: "a" }],
    ["m1=region=", { cluster: "m1", key: "region", value: "" }],
    ["m1=region-", { cluster: "m1", key: "region", value: null }],
  ])("%s", (spec, want) => {
    expect(parseLabelFlag(spec)).toEqual(want);
  });

  it.each([
    ["m1", '--label "m1": expected CLUSTER=KEY=VALUE or CLUSTER=KEY-'],
    ["m1=region", '--label "m1=region": no value'],
    ["m1=region=not ok", '--label "m1=region=not ok": value "not ok": a valid label must be'],
  ])("refuses %s", (spec, message) => {
    expect(() => parseLabelFlag(spec)).toThrow(message);
  });
});

describe("applyFleetChanges", () => {
  const fleet = [
    cluster("member1", { labels: { region: "r1" } }),
    cluster("member2", { taints: [{ key: "old", effect: "NoSchedule" }] }),
    cluster("member3"),
  ];

  it("cordon is karmadactl cordon's taint", () => {
    expect(CORDON_TAINT).toEqual({ key: TAINT_UNSCHEDULABLE, effect: "NoSchedule" });
  });

  it("changes copies, and only the clusters named", () => {
    const changes = parseFleetChanges({
      withoutCluster: ["member3"],
      cordon: ["member1"],
      taint: ["member2=x=y:NoExecute", "member2=old:NoSchedule-"],
      label: ["member1=region-", "member2=tier=gold"],
    });
    const snapshot = structuredClone(fleet);
    const out = applyFleetChanges(fleet, changes, NOW);
    expect(fleet).toEqual(snapshot);
    const [m1, m2, m3] = out.clusters;
    expect(m1!.spec?.taints).toEqual([CORDON_TAINT]);
    expect(m1!.metadata.labels).toEqual({});
    expect(m2!.spec?.taints).toEqual([{ key: "x", value: "y", effect: "NoExecute", timeAdded: STAMP }]);
    expect(m2!.metadata.labels).toEqual({ tier: "gold" });
    expect(m3!.metadata.deletionTimestamp).toBe(STAMP);
    expect(out.changed.map((c) => c.after.metadata.name)).toEqual(["member3", "member1", "member2"]);
    expect(out.changed[0]!.before).toBe(fleet[2]);
    expect(out.descriptions).toEqual([
      "cluster member3 removed",
      "cluster member1 cordoned",
      "cluster member2 tainted x=y:NoExecute",
      "taint old:NoSchedule removed from cluster member2",
      "label region removed from cluster member1",
      "cluster member2 labelled tier=gold",
    ]);
  });

  it("a cordon of a cordoned cluster changes nothing; an emptied taint list is dropped", () => {
    const cordoned = [cluster("member1", { taints: [CORDON_TAINT] })];
    expect(applyFleetChanges(cordoned, { cordon: ["member1"] }, NOW).changed).toEqual([]);
    const out = applyFleetChanges(
      cordoned,
      { taints: [parseTaintFlag(`member1=${CORDON_TAINT.key}-`)] },
      NOW,
    );
    expect(out.clusters[0]!.spec).toEqual({});
  });

  it("a taint with a new value replaces the one of the same key and effect", () => {
    const out = applyFleetChanges(fleet, { taints: [parseTaintFlag("member2=old=new:NoSchedule")] }, NOW);
    expect(out.clusters[1]!.spec?.taints).toEqual([{ key: "old", value: "new", effect: "NoSchedule" }]);
  });

  it.each([
    [{ cordon: ["nope"] }, '--cordon: cluster "nope" does not exist (clusters: member1, member2, member3)'],
    [{ withoutClusters: ["nope"] }, '--without-cluster: cluster "nope" does not exist'],
    [{ labels: [parseLabelFlag("nope=a=b")] }, '--label: cluster "nope" does not exist'],
    [
      { taints: [parseTaintFlag("member1=k:NoExecute-")] },
      "--taint member1=k:NoExecute-: cluster member1 has no taint k:NoExecute",
    ],
    [{ taints: [parseTaintFlag("member1=k-")] }, "--taint member1=k-: cluster member1 has no taint k"],
  ])("refuses %j", (changes, message) => {
    expect(() => applyFleetChanges(fleet, changes, NOW)).toThrow(message);
  });
});
