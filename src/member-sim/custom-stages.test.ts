import { describe, expect, it } from "vitest";
import type { StoredObject } from "../api/meta.ts";
import { type CustomStageEnv, parseStageFile, render, StageFileError, toStage } from "./custom-stages.ts";
import { matchStage } from "./stages.ts";

const ENV: CustomStageEnv = {
  now: Date.parse("2026-03-01T10:00:00Z"),
  newId: () => "f".repeat(32),
  newUuid: () => "u-u-i-d",
};

function cr(status?: Record<string, unknown>, generation = 1): StoredObject {
  return {
    apiVersion: "flink.apache.org/v1beta1",
    kind: "FlinkDeployment",
    metadata: { name: "wc", namespace: "jobs", uid: "uid-1", generation },
    spec: {},
    ...(status ? { status } : {}),
  };
}

describe("stage files", () => {
  it("parses a list of stages with defaults", () => {
    const stages = parseStageFile(`
- name: deploying
  apiVersion: flink.apache.org/v1beta1
  kind: FlinkDeployment
  set: {status: {jobStatus: {state: DEPLOYED}}}
- name: running
  apiVersion: flink.apache.org/v1beta1
  kind: FlinkDeployment
  delayMs: 1000
  when: {equals: {status.jobStatus.state: DEPLOYED}}
  set: {status: {jobStatus: {state: RUNNING, jobID: "\${id}"}}}
- name: observed
  apiVersion: example.com/v1
  kind: Widget
  when: once
  set: {status: {observedGeneration: "\${generation}"}}
`);
    expect(stages.map((s) => [s.name, s.delayMs, s.when])).toEqual([
      ["deploying", 0, { missing: "status" }],
      ["running", 1000, { equals: { "status.jobStatus.state": "DEPLOYED" } }],
      ["observed", 0, { once: true }],
    ]);
  });

  it("chains stages, first match wins, and fills placeholders", () => {
    const done = new Set<string>();
    const stages = parseStageFile(`
- {name: deploying, apiVersion: flink.apache.org/v1beta1, kind: FlinkDeployment, set: {status: {jobStatus: {state: DEPLOYED}}}}
- name: running
  apiVersion: flink.apache.org/v1beta1
  kind: FlinkDeployment
  when: {equals: {status.jobStatus.state: DEPLOYED}}
  set: {status: {jobStatus: {state: RUNNING, jobID: "\${id}", name: "\${namespace}/\${name}", since: "\${now}"}, generation: "\${generation}"}}
`).map((s) => toStage(s, done));
    expect(matchStage(stages, cr(), ENV)?.name).toBe("deploying");
    const deployed = cr({ jobStatus: { state: "DEPLOYED" } });
    const running = matchStage(stages, deployed, ENV)!;
    expect(running.name).toBe("running");
    expect(running.next(deployed, ENV)).toEqual({
      status: {
        jobStatus: {
          state: "RUNNING",
          jobID: "f".repeat(32),
          name: "jobs/wc",
          since: "2026-03-01T10:00:00Z",
        },
        generation: 1,
      },
    });
    expect(matchStage(stages, cr({ jobStatus: { state: "RUNNING" } }), ENV)).toBeUndefined();
  });

  it("applies a `once` stage once per generation", () => {
    const done = new Set<string>();
    const [stage] = parseStageFile(`
- {name: observe, apiVersion: example.com/v1, kind: Widget, when: once, set: {status: {observedGeneration: "\${generation}"}}}
`).map((s) => toStage(s, done));
    expect(stage!.when(cr(), ENV)).toBe(true);
    stage!.applied(cr());
    expect(stage!.when(cr(), ENV)).toBe(false);
    expect(stage!.when(cr(undefined, 2), ENV)).toBe(true);
  });

  it("renders placeholders inside strings and arrays", () => {
    expect(
      render({ a: [`\${uuid}`, `x-\${uid}`], b: 3, c: `\${generation}` }, cr(undefined, 7), ENV),
    ).toEqual({
      a: ["u-u-i-d", "x-uid-1"],
      b: 3,
      c: 7,
    });
  });

  it.each([
    ["a: b", "must be a YAML list of stages"],
    ["- 1", "stages[0]: must be a mapping"],
    ["- {apiVersion: a.b/v1, kind: K, set: {status: {}}}", "stages[0].name: required (a string)"],
    [
      "- {name: x, apiVersion: v1, kind: Pod, set: {status: {}}}",
      'stages[0].apiVersion: must be <group>/<version> of a custom resource, got "v1"',
    ],
    [
      "- {name: x, apiVersion: a.b/v1, kind: K, delayMs: -1, set: {status: {}}}",
      "stages[0].delayMs: must be a non-negative integer",
    ],
    [
      "- {name: x, apiVersion: a.b/v1, kind: K}",
      "stages[0].set: must be a mapping with one key, status (a mapping)",
    ],
    [
      "- {name: x, apiVersion: a.b/v1, kind: K, set: {spec: {}}}",
      "stages[0].set: must be a mapping with one key, status (a mapping)",
    ],
    [
      "- {name: x, apiVersion: a.b/v1, kind: K, set: {status: {}}, when: always}",
      'stages[0].when: must be "once", {missing: <field path>} or {equals: {<field path>: <value>}}',
    ],
    [
      "- {name: x, apiVersion: a.b/v1, kind: K, set: {status: {}}, when: {missing: 'a..b'}}",
      "stages[0].when.missing: must be a dotted field path",
    ],
    [
      "- {name: x, apiVersion: a.b/v1, kind: K, set: {status: {}}, when: {present: a}}",
      'stages[0].when: unknown condition "present"',
    ],
    [
      "- {name: x, apiVersion: a.b/v1, kind: K, set: {status: {}}, extra: 1}",
      'stages[0]: unknown field "extra"',
    ],
    [
      "- {name: x, apiVersion: a.b/v1, kind: K, set: {status: {}}}\n- {name: x, apiVersion: a.b/v1, kind: K, set: {status: {}}}",
      'stages[1].name: "x" is used twice',
    ],
    ["- [unclosed", "not valid YAML"],
  ])("rejects %j", (text, message) => {
    expect(() => parseStageFile(text)).toThrow(StageFileError);
    expect(() => parseStageFile(text)).toThrow(message);
  });

  it("accepts an empty file", () => {
    expect(parseStageFile("")).toEqual([]);
  });
});
