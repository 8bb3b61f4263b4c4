import { describe, expect, it } from "vitest";
import type { Taint } from "../../karmada/types.ts";
import { cordonTaints, cordonTarget, TAINT_UNSCHEDULABLE } from "./cordon.ts";
import {
  changeTaints,
  parseTaint,
  parseTaintCommand,
  parseTaints,
  splitTaintArgs,
  taintString,
  taintsPatch,
} from "./taint.ts";

const QNAME =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe("parseTaint (kubectl's parseTaint)", () => {
  it.each<[string, Taint]>([
    ["foo=bar:NoSchedule", { key: "foo", value: "bar", effect: "NoSchedule" }],
    ["foo:NoExecute", { key: "foo", effect: "NoExecute" }],
    ["foo:PreferNoSchedule", { key: "foo", effect: "PreferNoSchedule" }],
    ["foo=:NoSchedule", { key: "foo", effect: "NoSchedule" }],
    ["example.com/my-app=v1:NoSchedule", { key: "example.com/my-app", value: "v1", effect: "NoSchedule" }],
    ["foo", { key: "foo", effect: "" }],
  ])("%s", (spec, want) => {
    expect(parseTaint(spec)).toEqual(want);
  });

  it.each([
    ["foo:NoSchedul", "invalid taint effect: NoSchedul, unsupported taint effect"],
    ["foo:", "invalid taint effect: , unsupported taint effect"],
    ["a=b=c:NoSchedule", "invalid taint spec: a=b=c:NoSchedule"],
    ["a:b:NoSchedule", "invalid taint spec: a:b:NoSchedule"],
    ["foo=bar", `invalid taint spec: foo=bar, ${QNAME}`],
    [":NoSchedule", "invalid taint spec: :NoSchedule, name part must be non-empty; "],
    ["foo=-bad:NoSchedule", "invalid taint spec: foo=-bad:NoSchedule, a valid label must be"],
    ["a/b/c:NoSchedule", "invalid taint spec: a/b/c:NoSchedule, a qualified name must consist"],
  ])("%s fails: %s", (spec, message) => {
    expect(() => parseTaint(spec)).toThrow(message);
  });
});

describe("parseTaints", () => {
  it("splits additions from removals (by key and effect, or by key)", () => {
    expect(parseTaints(["a=1:NoSchedule", "b:NoExecute-", "c-", "d=2:NoExecute-"])).toEqual({
      toAdd: [{ key: "a", value: "1", effect: "NoSchedule" }],
      toRemove: [
        { key: "b", effect: "NoExecute" },
        { key: "c", effect: "" },
        { key: "d", effect: "NoExecute" },
      ],
    });
  });

  it.each([
    [["foo"], "invalid taint spec: foo"],
    [
      ["a=1:NoSchedule", "a=2:NoSchedule"],
      "duplicated taints with the same key and effect: {a 2 NoSchedule <nil>}",
    ],
    [
      ["a:NoSchedule", "a:NoSchedule"],
      "duplicated taints with the same key and effect: {a  NoSchedule <nil>}",
    ],
    [["a:Bad-"], "invalid taint effect: Bad, unsupported taint effect"],
  ])("%j fails: %s", (specs, message) => {
    expect(() => parseTaints(specs)).toThrow(message);
  });

  it("takes one key with two effects", () => {
    expect(parseTaints(["a:NoSchedule", "a:NoExecute"]).toAdd).toHaveLength(2);
  });
});

describe("splitTaintArgs and parseTaintCommand (upstream's Complete and Validate)", () => {
  it("resources first, then taints", () => {
    expect(splitTaintArgs(["clusters", "m1", "m2", "a=b:NoSchedule", "c-"])).toEqual({
      resources: ["clusters", "m1", "m2"],
      taintArgs: ["a=b:NoSchedule", "c-"],
    });
    expect(parseTaintCommand(["Cluster", "m1", "a:NoSchedule"]).clusters).toEqual(["m1"]);
  });

  it.each([
    [["clusters", "a:NoSchedule", "m1"], "all resources must be specified before taint changes: m1"],
    [["a:NoSchedule"], "one or more resources must be specified as <resource> <name>"],
    [["clusters", "m1"], "at least one taint update is required"],
    [["clusters", "m1", "foo"], "at least one taint update is required"],
    [
      ["nodes", "m1", "a:NoSchedule"],
      'invalid resource type nodes, only ["cluster" "clusters"] are supported',
    ],
    [["clusters", "m1", "bad key:NoSchedule"], "invalid taint spec: bad key:NoSchedule"],
    [
      ["clusters", "m1", "a=1:NoSchedule", "a:NoSchedule-", "b:NoExecute", "b-"],
      'can not both modify and remove the following taint(s) in the same command: {"a":"NoSchedule"}, {"b":""}',
    ],
    [["clusters", "a:NoSchedule"], "at least one resource name must be specified"],
  ])("%j fails: %s", (args, message) => {
    expect(() => parseTaintCommand(args)).toThrow(message);
  });

  it("removing a key with another effect than the one added is no conflict", () => {
    expect(parseTaintCommand(["clusters", "m1", "a:NoSchedule", "a:NoExecute-"]).toRemove).toEqual([
      { key: "a", effect: "NoExecute" },
    ]);
  });
});

describe("changeTaints (upstream's reorganizeTaints)", () => {
  const old: Taint[] = [
    { key: "a", value: "1", effect: "NoSchedule" },
    { key: "b", effect: "NoExecute", timeAdded: "2026-01-01T00:00:00Z" },
  ];
  const change = (args: string[], overwrite = false, current = old) =>
    changeTaints("m1", current, parseTaintCommand(["clusters", "m1", ...args]), overwrite);
  const show = (ts: Taint[]) => ts.map(taintString);

  it.each<[string, string[], boolean, string, string[]]>([
    [
      "adds first, keeps the rest",
      ["c=3:NoSchedule"],
      false,
      "tainted",
      ["c=3:NoSchedule", "a=1:NoSchedule", "b:NoExecute"],
    ],
    ["removes by key and effect", ["b:NoExecute-"], false, "untainted", ["a=1:NoSchedule"]],
    ["removes every effect of a key", ["a-", "b-"], false, "untainted", []],
    [
      "adds and removes: modified",
      ["c:NoSchedule", "a-"],
      false,
      "modified",
      ["c:NoSchedule", "b:NoExecute"],
    ],
    [
      "--overwrite replaces the value: modified",
      ["a=2:NoSchedule"],
      true,
      "modified",
      ["a=2:NoSchedule", "b:NoExecute"],
    ],
    [
      "--overwrite on a new taint is modified too",
      ["c:NoSchedule"],
      true,
      "modified",
      ["c:NoSchedule", "a=1:NoSchedule", "b:NoExecute"],
    ],
    [
      "the same key with another effect is a new taint",
      ["a:NoExecute"],
      false,
      "tainted",
      ["a:NoExecute", "a=1:NoSchedule", "b:NoExecute"],
    ],
  ])("%s", (_name, args, overwrite, operation, taints) => {
    const out = change(args, overwrite);
    expect(out.operation).toBe(operation);
    expect(show(out.taints)).toEqual(taints);
  });

  it("keeps timeAdded of the taints it keeps, and stamps none (the admission stamps NoExecute)", () => {
    const out = change(["c:NoExecute"]);
    expect(out.taints[0]).toEqual({ key: "c", effect: "NoExecute" });
    expect(out.taints[2]).toEqual(old[1]);
  });

  it.each<[string, string[], string]>([
    [
      "an existing key and effect without --overwrite",
      ["a=2:NoSchedule", "b:NoExecute"],
      "cluster m1 already has a,b taint(s) with same effect(s) and --overwrite is false",
    ],
    ["removing what is not there", ["z:NoSchedule-"], 'taint "z:NoSchedule" not found'],
    [
      "removing several that are not there",
      ["z-", "a:NoExecute-"],
      '[taint "z" not found, taint "a:NoExecute" not found]',
    ],
  ])("fails on %s", (_name, args, message) => {
    expect(() => change(args)).toThrow(message);
  });

  it("patches the list, or drops it when empty", () => {
    expect(taintsPatch([{ key: "a", effect: "NoSchedule" }])).toEqual({
      spec: { taints: [{ key: "a", effect: "NoSchedule" }] },
    });
    expect(taintsPatch([])).toEqual({ spec: { taints: null } });
  });
});

describe("cordon and uncordon", () => {
  const u: Taint = { key: TAINT_UNSCHEDULABLE, effect: "NoSchedule" };
  const a: Taint = { key: "a", effect: "NoSchedule" };
  const b: Taint = { key: "b", effect: "NoExecute" };

  it.each<[string, Taint[], boolean, Taint[] | undefined]>([
    ["cordon adds the taint last", [a], true, [a, u]],
    ["cordon of a cordoned cluster changes nothing", [u, a], true, undefined],
    ["uncordon moves the last taint into its place, as upstream", [u, a, b], false, [b, a]],
    ["uncordon of the last taint", [a, u], false, [a]],
    ["uncordon of an uncordoned cluster changes nothing", [a], false, undefined],
    ["another effect of the key is not the cordon", [{ ...u, effect: "NoExecute" }], false, undefined],
  ])("%s", (_name, taints, cordon, want) => {
    expect(cordonTaints(taints, cordon)).toEqual(want);
  });

  it.each([
    [[], "cluster name is required"],
    [["a", "b"], "more than one cluster name is not supported"],
  ])("%j fails: %s", (args, message) => {
    expect(() => cordonTarget(args)).toThrow(message);
  });
});
