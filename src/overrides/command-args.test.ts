import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/meta.ts";
import {
  applyCommandArgsOverriders,
  type CommandArgsOverrider,
  type CommandArgsTarget,
  commandArgsPatches,
} from "./command-args.ts";

const COMMAND = ["nginx", "-v", "-t"];

function workload(kind: string, containers: unknown[]): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind,
    metadata: { name: "nginx" },
    spec: { template: { spec: { containers } } },
  };
}
const withCommand = (kind = "Deployment") =>
  workload(kind, [{ image: "nginx", name: "nginx", command: [...COMMAND] }]);
const withArgs = () => workload("Deployment", [{ image: "nginx", name: "nginx", args: [...COMMAND] }]);
const twoContainers = () =>
  workload("Deployment", [
    { name: "nginx", command: [...COMMAND] },
    { name: "nginx1", command: [...COMMAND] },
  ]);
const pod = (): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "nginx" },
  spec: { containers: [{ image: "nginx", name: "nginx", command: [...COMMAND] }] },
});
const PATH0 = "/spec/template/spec/containers/0";

interface Case {
  name: string;
  target: CommandArgsTarget;
  object: KubeObject;
  overrider: CommandArgsOverrider;
  want: Array<{ op: string; path: string; value: string[] }>;
}

// upstream's TestParseJSONPatchesByCommandOverrider and TestParseJSONPatchesByArgsOverrider
const upstreamCases: Case[] = [
  {
    name: "command, Deployment, add",
    target: "command",
    object: withCommand(),
    overrider: { containerName: "nginx", operator: "add", value: ["&& echo 'hello karmada'"] },
    want: [{ op: "replace", path: `${PATH0}/command`, value: [...COMMAND, "&& echo 'hello karmada'"] }],
  },
  {
    name: "command, Deployment, remove",
    target: "command",
    object: withCommand(),
    overrider: { containerName: "nginx", operator: "remove", value: ["-t"] },
    want: [{ op: "replace", path: `${PATH0}/command`, value: ["nginx", "-v"] }],
  },
  {
    name: "command, Deployment, remove nothing",
    target: "command",
    object: withCommand(),
    overrider: { containerName: "nginx", operator: "remove", value: [] },
    want: [{ op: "replace", path: `${PATH0}/command`, value: COMMAND }],
  },
  {
    name: "command, two containers, add to the named one",
    target: "command",
    object: twoContainers(),
    overrider: { containerName: "nginx", operator: "add", value: ["echo 'hello karmada'"] },
    want: [{ op: "replace", path: `${PATH0}/command`, value: [...COMMAND, "echo 'hello karmada'"] }],
  },
  {
    name: "command, two containers, remove from the named one",
    target: "command",
    object: twoContainers(),
    overrider: { containerName: "nginx", operator: "remove", value: ["-t"] },
    want: [{ op: "replace", path: `${PATH0}/command`, value: ["nginx", "-v"] }],
  },
  {
    name: "command, Pod, add",
    target: "command",
    object: pod(),
    overrider: { containerName: "nginx", operator: "add", value: ["echo 'hello karmada'"] },
    want: [
      { op: "replace", path: "/spec/containers/0/command", value: [...COMMAND, "echo 'hello karmada'"] },
    ],
  },
  {
    name: "command, StatefulSet, add",
    target: "command",
    object: withCommand("StatefulSet"),
    overrider: { containerName: "nginx", operator: "add", value: ["echo 'hello karmada'"] },
    want: [{ op: "replace", path: `${PATH0}/command`, value: [...COMMAND, "echo 'hello karmada'"] }],
  },
  {
    name: "command, ReplicaSet, remove",
    target: "command",
    object: withCommand("ReplicaSet"),
    overrider: { containerName: "nginx", operator: "remove", value: ["-t"] },
    want: [{ op: "replace", path: `${PATH0}/command`, value: ["nginx", "-v"] }],
  },
  {
    name: "command, DaemonSet, remove",
    target: "command",
    object: withCommand("DaemonSet"),
    overrider: { containerName: "nginx", operator: "remove", value: ["-t"] },
    want: [{ op: "replace", path: `${PATH0}/command`, value: ["nginx", "-v"] }],
  },
  {
    name: "args, Deployment, add",
    target: "args",
    object: withArgs(),
    overrider: { containerName: "nginx", operator: "add", value: ["&& echo 'hello karmada'"] },
    want: [{ op: "replace", path: `${PATH0}/args`, value: [...COMMAND, "&& echo 'hello karmada'"] }],
  },
  {
    name: "args, Deployment, remove",
    target: "args",
    object: withArgs(),
    overrider: { containerName: "nginx", operator: "remove", value: ["-t"] },
    want: [{ op: "replace", path: `${PATH0}/args`, value: ["nginx", "-v"] }],
  },
  {
    name: "args, Deployment without args: add creates the list",
    target: "args",
    object: withCommand(),
    overrider: { containerName: "nginx", operator: "add", value: ["-t"] },
    want: [{ op: "add", path: `${PATH0}/args`, value: ["-t"] }],
  },
];

const moreCases: Case[] = [
  {
    name: "remove from a missing list adds an empty one",
    target: "args",
    object: withCommand(),
    overrider: { containerName: "nginx", operator: "remove", value: ["-t"] },
    want: [{ op: "add", path: `${PATH0}/args`, value: [] }],
  },
  {
    name: "remove drops every occurrence",
    target: "command",
    object: workload("Job", [{ name: "a", command: ["x", "y", "x", "z"] }]),
    overrider: { containerName: "a", operator: "remove", value: ["x", "z"] },
    want: [{ op: "replace", path: `${PATH0}/command`, value: ["y"] }],
  },
  {
    name: "every container with the name",
    target: "args",
    object: workload("Deployment", [{ name: "a" }, { name: "b" }, { name: "a", args: ["1"] }]),
    overrider: { containerName: "a", operator: "add", value: ["2"] },
    want: [
      { op: "add", path: `${PATH0}/args`, value: ["2"] },
      { op: "replace", path: "/spec/template/spec/containers/2/args", value: ["1", "2"] },
    ],
  },
  {
    name: "no container with the name",
    target: "command",
    object: withCommand(),
    overrider: { containerName: "sidecar", operator: "add", value: ["x"] },
    want: [],
  },
  {
    name: "kinds without pod templates are left alone",
    target: "command",
    object: { apiVersion: "batch/v1", kind: "CronJob", spec: {} },
    overrider: { containerName: "nginx", operator: "add", value: ["x"] },
    want: [],
  },
  {
    name: "no containers",
    target: "command",
    object: { apiVersion: "apps/v1", kind: "Deployment", spec: {} },
    overrider: { containerName: "nginx", operator: "add", value: ["x"] },
    want: [],
  },
  {
    name: "non-string entries are formatted as Go's %s does",
    target: "args",
    object: workload("Deployment", [{ name: "a", args: ["--port", 8080] }]),
    overrider: { containerName: "a", operator: "add", value: [] },
    want: [{ op: "replace", path: `${PATH0}/args`, value: ["--port", "%!s(int64=8080)"] }],
  },
];

describe("commandArgsPatches", () => {
  it.each([...upstreamCases, ...moreCases])("$name", ({ target, object, overrider, want }) => {
    expect(commandArgsPatches(target, object, overrider)).toEqual(want);
  });

  it("fails when the containers are not a list", () => {
    const object = { apiVersion: "v1", kind: "Pod", spec: { containers: { name: "a" } } };
    expect(() => commandArgsPatches("command", object, { containerName: "a", operator: "add" })).toThrow(
      'failed to retrieves path(spec/containers) from rawObj, error: .spec.containers accessor error: {"name":"a"} is of the type map[string]interface {}, expected []interface{}',
    );
  });
});

describe("applyCommandArgsOverriders", () => {
  it("applies overriders in order to a copy", () => {
    const input = withCommand();
    const out = applyCommandArgsOverriders("command", input, [
      { containerName: "nginx", operator: "remove", value: ["-t"] },
      { containerName: "nginx", operator: "add", value: ["-g", "daemon off;"] },
    ]);
    expect(out).toEqual(
      workload("Deployment", [
        { image: "nginx", name: "nginx", command: ["nginx", "-v", "-g", "daemon off;"] },
      ]),
    );
    expect(input).toEqual(withCommand());
  });
});
