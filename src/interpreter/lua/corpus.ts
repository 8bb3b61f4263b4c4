/**
 * Upstream's third-party customizations corpus, for tests: every case of every
 * `testdata/*.yaml` with the kind's upstream `customizations.yaml`, run through our engine the
 * way upstream's `thirdparty_test.go` runs it, and compared as upstream compares: requirements
 * and components with quantity equality, dependencies and components sorted, objects after
 * removing `{{EXCLUDE}}` fields, everything else as JSON. Every key of `output` must be
 * produced and equal.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { expect } from "vitest";
import type { KubeObject } from "../../api/meta.ts";
import type { AggregatedStatusItem } from "../../karmada/types.ts";
import { compareQuantities, parseQuantity } from "../../machinery/quantity.ts";
import { yamlToJson } from "../../overrides/yaml-v2.ts";
import type { LuaEngine } from "./engine.ts";
import {
  type Customizations,
  compareDependencies,
  runAggregateStatus,
  runGetComponents,
  runGetDependencies,
  runGetReplicas,
  runInterpretHealth,
  runReflectStatus,
  runRetain,
  runReviseReplica,
} from "./operations.ts";
import { toComponents, toDependencies, toReplicaRequirements } from "./typed.ts";
import type { Json } from "./values.ts";

// Upstream's data, read in place; never copied into this repository.
const CORPUS = new URL("../../../../shared/conformance/karmada/thirdparty-customizations/", import.meta.url);

interface TestCase {
  name?: string;
  desiredObj?: KubeObject;
  observedObj?: KubeObject;
  statusItems?: AggregatedStatusItem[];
  inputReplicas?: number;
  operation?: string;
  output?: Record<string, Json>;
}

export interface CorpusCase {
  title: string;
  /** The kind's `group/version` and kind. */
  apiVersion: string;
  kind: string;
  customizations: Customizations;
  test: TestCase;
}

/** Whether a quoted scalar that starts with `rest` (after its opening quote) ends on this line. */
function closesQuote(rest: string, quote: string): boolean {
  for (let i = 0; i < rest.length; i++) {
    if (quote === "'" && rest[i] === "'") {
      if (rest[i + 1] !== "'") return true;
      i++;
    } else if (quote === '"' && rest[i] === "\\") i++;
    else if (quote === '"' && rest[i] === '"') return true;
  }
  return false;
}

/**
 * A few upstream files continue a quoted value on a line indented like its key. libyaml (and
 * so go-yaml) accepts that; the YAML spec and our parser do not. Indenting such continuation
 * lines by one space changes nothing in the value (leading blanks are folded away).
 */
function indentQuotedContinuations(text: string): string {
  let open: string | undefined;
  return text
    .split("\n")
    .map((line) => {
      if (open !== undefined) {
        if (closesQuote(line, open)) open = undefined;
        return ` ${line}`;
      }
      const m = /^\s*(?:- )?[^\s#'"][^:#]*:\s+(['"])(.*)$/.exec(line);
      if (m && !closesQuote(m[2]!, m[1]!)) open = m[1];
      return line;
    })
    .join("\n");
}

/** sigs.k8s.io/yaml on each `---` document, as YAMLOrJSONDecoder reads a file. */
function documents(text: string): unknown[] {
  return text
    .split(/^---[ \t]*$/m)
    .map((doc) => JSON.parse(yamlToJson(indentQuotedContinuations(doc))) as unknown)
    .filter((doc) => doc !== null);
}

function list(dir: URL): string[] {
  return readdirSync(dir).sort();
}

export function loadCorpus(): CorpusCase[] {
  const cases: CorpusCase[] = [];
  for (const group of list(CORPUS)) {
    for (const version of list(new URL(`${group}/`, CORPUS))) {
      for (const kind of list(new URL(`${group}/${version}/`, CORPUS))) {
        const dir = new URL(`${group}/${version}/${kind}/`, CORPUS);
        if (!statSync(dir).isDirectory()) continue;
        const [ric] = documents(readFileSync(new URL("customizations.yaml", dir), "utf8")) as Array<{
          spec: { customizations: Customizations };
        }>;
        const testdata = new URL("testdata/", dir);
        for (const file of list(testdata)) {
          for (const test of documents(readFileSync(new URL(file, testdata), "utf8")) as TestCase[]) {
            cases.push({
              title: `${group}/${version}/${kind} ${file}: ${test.name ?? "(unnamed)"}`,
              apiVersion: `${group}/${version}`,
              kind,
              customizations: ric!.spec.customizations,
              test,
            });
          }
        }
      }
    }
  }
  return cases;
}

/** The one input object of single-object operations (upstream's getObjectOrError). */
function theObject(test: TestCase): KubeObject {
  if (test.desiredObj && test.observedObj) throw new Error("both desiredObj and observedObj are set");
  const obj = test.desiredObj ?? test.observedObj;
  if (!obj) throw new Error("neither desiredObj nor observedObj is set");
  return obj;
}

function scriptFor(customizations: Customizations, rule: keyof Customizations): string {
  const script = customizations[rule]?.luaScript;
  if (!script) throw new Error(`rule ${rule} is not enabled`);
  return script;
}

/** Runs the case's operation; returns the named results upstream's rule produces. */
function run(engine: LuaEngine, c: CorpusCase): Record<string, unknown> {
  const { test, customizations } = c;
  switch ((test.operation ?? "").toLowerCase()) {
    case "retain": {
      if (!test.desiredObj || !test.observedObj) throw new Error("Retain needs desiredObj and observedObj");
      const script = scriptFor(customizations, "retention");
      return { retained: runRetain(engine, script, test.desiredObj, test.observedObj) };
    }
    case "interpretreplica": {
      const r = runGetReplicas(engine, scriptFor(customizations, "replicaResource"), theObject(test));
      return { replica: r.replicas, requires: r.requirements };
    }
    case "interpretcomponent":
      return {
        components: runGetComponents(engine, scriptFor(customizations, "componentResource"), theObject(test)),
      };
    case "revisereplica": {
      const script = scriptFor(customizations, "replicaRevision");
      return { revised: runReviseReplica(engine, script, theObject(test), test.inputReplicas ?? 0) };
    }
    case "interpretstatus":
      return {
        status: runReflectStatus(engine, scriptFor(customizations, "statusReflection"), theObject(test)),
      };
    case "aggregatestatus": {
      const script = scriptFor(customizations, "statusAggregation");
      return {
        aggregatedStatus: runAggregateStatus(engine, script, theObject(test), test.statusItems ?? null),
      };
    }
    case "interprethealth":
      return {
        healthy: runInterpretHealth(
          engine,
          scriptFor(customizations, "healthInterpretation"),
          theObject(test),
        ),
      };
    case "interpretdependency": {
      const script = scriptFor(customizations, "dependencyInterpretation");
      return { dependencies: runGetDependencies(engine, script, theObject(test)) };
    }
    default:
      throw new Error(`operation ${test.operation} is not supported`);
  }
}

const EXCLUDE = "{{EXCLUDE}}";

/** Drops the fields `expected` marks `{{EXCLUDE}}` from both sides (paths include list indices). */
function withoutExcluded(expected: unknown, actual: unknown): [unknown, unknown] {
  const paths = new Set<string>();
  const collect = (value: unknown, path: string[]): unknown => {
    if (Array.isArray(value)) return value.map((v, i) => collect(v, [...path, String(i)]));
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (v === EXCLUDE) paths.add([...path, k].join("."));
        else out[k] = collect(v, [...path, k]);
      }
      return out;
    }
    return value;
  };
  const drop = (value: unknown, path: string[]): unknown => {
    if (Array.isArray(value)) return value.map((v, i) => drop(v, [...path, String(i)]));
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (!paths.has([...path, k].join("."))) out[k] = drop(v, [...path, k]);
      }
      return out;
    }
    return value;
  };
  const e = collect(expected, []);
  return [e, drop(actual, [])];
}

/** Deep equality of JSON values; under `resourceRequest`, quantities compare by value. */
function semanticEqual(a: unknown, b: unknown, inResources = false): boolean {
  if (inResources && (typeof a === "string" || typeof a === "number")) {
    const x = parseQuantity(a);
    const y = parseQuantity(b);
    return x !== undefined && y !== undefined && compareQuantities(x, y) === 0;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((v, i) => semanticEqual(v, b[i]))
    );
  }
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    if (ka.join("\u0000") !== kb.join("\u0000")) return false;
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    return ka.every((k) => semanticEqual(ra[k], rb[k], k === "resourceRequest" || inResources));
  }
  return a === b;
}

const byName = (x: { name: string }, y: { name: string }) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0);

/** Upstream's deepEqual: typed results are decoded from the expectation first. */
function expectSame(key: string, expected: Json, actual: unknown): void {
  switch (key) {
    case "requires":
      expect(actual).toBeDefined();
      expect(semanticEqual(actual, toReplicaRequirements(expected)), JSON.stringify(actual)).toBe(true);
      return;
    case "components": {
      const want = toComponents(expected).sort(byName);
      const got = [...(actual as Array<{ name: string }>)].sort(byName);
      expect(semanticEqual(got, want), JSON.stringify(got)).toBe(true);
      return;
    }
    case "dependencies":
      expect(actual).toEqual(toDependencies(expected).sort(compareDependencies));
      return;
    case "retained":
    case "revised":
    case "aggregatedStatus": {
      const [want, got] = withoutExcluded(expected, actual);
      expect(got).toEqual(want);
      expect(semanticEqual(got, want)).toBe(true);
      return;
    }
    default:
      expect(semanticEqual(actual, expected), JSON.stringify(actual)).toBe(true);
  }
}

/** Runs the case with `customizations` (upstream's when not given) and checks every output key. */
export function checkCase(engine: LuaEngine, c: CorpusCase, customizations = c.customizations): void {
  const results = run(engine, { ...c, customizations });
  const output = c.test.output ?? {};
  for (const key of Object.keys(output)) {
    expect(Object.hasOwn(results, key), `output key ${key} is produced`).toBe(true);
    expectSame(key, output[key]!, results[key]);
  }
}
