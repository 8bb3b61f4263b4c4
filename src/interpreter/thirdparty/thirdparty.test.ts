/**
 * Our bundled third-party interpreters against upstream's corpus: every case of every kind in
 * `../shared/conformance/karmada/thirdparty-customizations/` runs through our engine with OUR
 * scripts (BUNDLED_CUSTOMIZATIONS), compared as upstream compares (see lua/corpus.ts).
 * Also: every corpus kind has exactly one bundled customization with the same rules as
 * upstream's, none of its scripts is upstream's verbatim, every script passes the API
 * server's admission check, and each operation runs through a CustomizationSource.
 */
import { readdirSync, statSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject, NewObject } from "../../api/meta.ts";
import { CustomizationSource } from "../customizations.ts";
import { type CorpusCase, checkCase, loadCorpus } from "../lua/corpus.ts";
import { LuaEngine } from "../lua/engine.ts";
import { type Customizations, checkCustomizations, luaInterpreter } from "../lua/operations.ts";
import { BUNDLED_CUSTOMIZATIONS } from "./index.ts";

// Upstream's data, read in place (as lua/corpus.ts reads it).
const CORPUS = new URL("../../../../shared/conformance/karmada/thirdparty-customizations/", import.meta.url);

const cases = loadCorpus();
let engine: LuaEngine;

beforeAll(async () => {
  engine = await LuaEngine.create();
});
afterAll(() => engine.close());

interface Target {
  apiVersion: string;
  kind: string;
}

const targetOf = (c: NewObject): Target | undefined => (c.spec as { target?: Target }).target;
const customizationsOf = (c: NewObject): Customizations =>
  (c.spec as { customizations?: Customizations }).customizations ?? {};

function bundledFor(apiVersion: string, kind: string): NewObject[] {
  return BUNDLED_CUSTOMIZATIONS.filter((c) => {
    const target = targetOf(c);
    return target?.apiVersion === apiVersion && target.kind === kind;
  });
}

function ours(apiVersion: string, kind: string): Customizations | undefined {
  const [found] = bundledFor(apiVersion, kind);
  return found ? customizationsOf(found) : undefined;
}

/** Every `<group>/<version>/<Kind>` directory of the corpus, whether or not it has test data. */
function corpusKinds(): Target[] {
  const list = (url: URL) => readdirSync(url).sort();
  const out: Target[] = [];
  for (const group of list(CORPUS)) {
    for (const version of list(new URL(`${group}/`, CORPUS))) {
      for (const kind of list(new URL(`${group}/${version}/`, CORPUS))) {
        if (statSync(new URL(`${group}/${version}/${kind}/`, CORPUS)).isDirectory()) {
          out.push({ apiVersion: `${group}/${version}`, kind });
        }
      }
    }
  }
  return out;
}

const kinds = [...new Map(cases.map((c) => [`${c.apiVersion} ${c.kind}`, c])).values()];

describe("our bundled third-party interpreters", () => {
  it("cover every kind of upstream's corpus, once each", () => {
    const targets = corpusKinds();
    expect(targets.length).toBeGreaterThan(20);
    for (const { apiVersion, kind } of targets) {
      expect(bundledFor(apiVersion, kind).length, `${apiVersion} ${kind}`).toBe(1);
    }
  });

  it.each(kinds.map((c) => [`${c.apiVersion} ${c.kind}`, c] as const))(
    "%s: bundled, with upstream's rules, none copied",
    (_name, c: CorpusCase) => {
      const mine = ours(c.apiVersion, c.kind);
      expect(mine, "a bundled customization").toBeDefined();
      expect(Object.keys(mine!).sort()).toEqual(Object.keys(c.customizations).sort());
      for (const [rule, { luaScript }] of Object.entries(mine!) as Array<
        [keyof Customizations, { luaScript: string }]
      >) {
        expect(luaScript.trim(), rule).not.toBe(c.customizations[rule]?.luaScript.trim());
      }
    },
  );

  it.each(cases.map((c) => [c.title, c] as const))("%s", (_title, c) => {
    const mine = ours(c.apiVersion, c.kind);
    if (!mine) throw new Error(`no bundled customization for ${c.apiVersion} ${c.kind}`);
    checkCase(engine, c, mine);
  });
});

/** The corpus operation that exercises each rule. */
const OPERATION_OF: Record<keyof Customizations, string> = {
  retention: "retain",
  replicaResource: "interpretreplica",
  componentResource: "interpretcomponent",
  replicaRevision: "revisereplica",
  statusReflection: "interpretstatus",
  statusAggregation: "aggregatestatus",
  healthInterpretation: "interprethealth",
  dependencyInterpretation: "interpretdependency",
};

describe("our bundled third-party interpreters in the engine", () => {
  it("pass the admission check the API server applies to customizations", () => {
    for (const ric of BUNDLED_CUSTOMIZATIONS) {
      expect(checkCustomizations(engine, customizationsOf(ric)), ric.metadata.name).toEqual([]);
    }
  });

  it("answer every operation they script through a CustomizationSource", async () => {
    const source = new CustomizationSource("thirdparty", engine);
    source.set(BUNDLED_CUSTOMIZATIONS);
    let calls = 0;
    for (const ric of BUNDLED_CUSTOMIZATIONS) {
      const { apiVersion, kind } = targetOf(ric)!;
      const ofKind = cases.filter((c) => c.apiVersion === apiVersion && c.kind === kind);
      for (const rule of Object.keys(customizationsOf(ric)) as Array<keyof Customizations>) {
        // A corpus case of this rule when there is one (scripts may rely on its fields), else
        // any object of the kind.
        const c = ofKind.find((x) => x.test.operation?.toLowerCase() === OPERATION_OF[rule]) ?? ofKind[0]!;
        const input = { ...(c.test.desiredObj ?? c.test.observedObj)!, apiVersion, kind } as KubeObject;
        const name = `${kind} ${rule}`;
        switch (rule) {
          case "retention":
            expect(source.handles("Retain", apiVersion, kind), name).toBe(true);
            expect(
              await source.retain(input, { ...(c.test.observedObj ?? input), apiVersion, kind }),
            ).toBeTruthy();
            break;
          case "replicaResource":
            expect(typeof (await source.getReplicas(input)).replicas, name).toBe("number");
            break;
          case "componentResource":
            expect(
              Array.isArray(luaInterpreter(engine, customizationsOf(ric)).getComponents!(input)),
              name,
            ).toBe(true);
            break;
          case "replicaRevision":
            expect(await source.reviseReplica(input, 3), name).toBeTruthy();
            break;
          case "statusReflection":
            expect(source.handles("InterpretStatus", apiVersion, kind), name).toBe(true);
            await source.reflectStatus(input);
            break;
          case "statusAggregation":
            expect(await source.aggregateStatus(input, c.test.statusItems ?? []), name).toBeTruthy();
            break;
          case "healthInterpretation":
            expect(["Healthy", "Unhealthy"], name).toContain(await source.interpretHealth(input));
            break;
          case "dependencyInterpretation":
            expect(Array.isArray(await source.getDependencies(input)), name).toBe(true);
            break;
        }
        calls++;
      }
    }
    expect(calls).toBeGreaterThan(100);
  });
});
