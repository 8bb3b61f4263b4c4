/**
 * An interpreter source made of ResourceInterpreterCustomizations: Lua scripts per target kind
 * and operation, run on our Lua engine. Serves the user's customizations (highest precedence)
 * and our bundled third-party scripts alike. As upstream's declarative interpreter: for each
 * kind, the first customization by name that scripts an operation answers it, except
 * dependencies, which every customization of the kind may add to (the union, sorted).
 */
import type { KubeObject, NewObject } from "../api/meta.ts";
import type { AggregatedStatusItem, ReplicaRequirements } from "../karmada/types.ts";
import type { LuaEngine, LuaLimits } from "./lua/engine.ts";
import {
  type Customizations,
  type LuaInterpreter,
  luaInterpreter,
  sortDependencies,
} from "./lua/operations.ts";
import type {
  DependentObjectReference,
  Health,
  InterpreterOperation,
  InterpreterSource,
  ResourceInterpreter,
} from "./types.ts";

type Method = keyof ResourceInterpreter;

const METHOD_OF: Record<InterpreterOperation, Method | undefined> = {
  InterpretReplica: "getReplicas",
  ReviseReplica: "reviseReplica",
  Retain: "retain",
  AggregateStatus: "aggregateStatus",
  InterpretStatus: "reflectStatus",
  InterpretHealth: "interpretHealth",
  InterpretDependency: "getDependencies",
  // Components are not asked for by any controller yet.
  InterpretComponent: undefined,
};

interface KindScripts {
  /** The first customization (by name) scripting each operation. */
  first: LuaInterpreter;
  /** Every customization's dependency script. */
  dependencies: Array<NonNullable<LuaInterpreter["getDependencies"]>>;
}

const kindKey = (apiVersion: string, kind: string): string => `${apiVersion}|${kind}`;

function targetOf(ric: KubeObject): { apiVersion: string; kind: string } | undefined {
  const target = (ric.spec as { target?: { apiVersion?: string; kind?: string } } | undefined)?.target;
  return target?.apiVersion && target.kind ? { apiVersion: target.apiVersion, kind: target.kind } : undefined;
}

export class CustomizationSource implements InterpreterSource {
  readonly name: string;
  readonly #engine: LuaEngine;
  readonly #limits: LuaLimits;
  #byKind = new Map<string, KindScripts>();

  constructor(name: string, engine: LuaEngine, limits: LuaLimits = {}) {
    this.name = name;
    this.#engine = engine;
    this.#limits = limits;
  }

  /** Replaces the customizations (all of them, as an informer lists them). */
  set(customizations: readonly NewObject[]): void {
    const byKind = new Map<string, KindScripts>();
    const sorted = [...customizations]
      .filter((c) => !c.metadata.deletionTimestamp)
      .sort((a, b) => ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1));
    for (const ric of sorted) {
      const target = targetOf(ric);
      if (!target) continue;
      const spec = (ric.spec as { customizations?: Customizations } | undefined)?.customizations ?? {};
      const scripts = luaInterpreter(this.#engine, spec, this.#limits);
      const key = kindKey(target.apiVersion, target.kind);
      const entry = byKind.get(key) ?? { first: {}, dependencies: [] };
      byKind.set(key, entry);
      for (const [method, fn] of Object.entries(scripts) as Array<[keyof LuaInterpreter, unknown]>) {
        if (typeof fn !== "function") continue;
        if (method === "getDependencies") entry.dependencies.push(fn as KindScripts["dependencies"][number]);
        else if (entry.first[method] === undefined) (entry.first as Record<string, unknown>)[method] = fn;
      }
    }
    this.#byKind = byKind;
  }

  /** The kinds (`apiVersion|kind`) that have at least one script. */
  kinds(): string[] {
    return [...this.#byKind.keys()];
  }

  handles(operation: InterpreterOperation, apiVersion: string, kind: string): boolean {
    const entry = this.#byKind.get(kindKey(apiVersion, kind));
    const method = METHOD_OF[operation];
    if (!entry || !method) return false;
    return method === "getDependencies" ? entry.dependencies.length > 0 : entry.first[method] !== undefined;
  }

  #scripts(obj: KubeObject): KindScripts {
    const entry = this.#byKind.get(kindKey(obj.apiVersion ?? "", obj.kind ?? ""));
    if (!entry) throw new Error(`no customization for ${obj.apiVersion} ${obj.kind}`);
    return entry;
  }

  async getReplicas(obj: KubeObject): Promise<{ replicas: number; requirements?: ReplicaRequirements }> {
    return this.#scripts(obj).first.getReplicas!(obj)!;
  }

  async reviseReplica(obj: KubeObject, replicas: number): Promise<KubeObject> {
    return this.#scripts(obj).first.reviseReplica!(obj, replicas)!;
  }

  async retain(desired: KubeObject, observed: KubeObject): Promise<KubeObject> {
    return this.#scripts(desired).first.retain!(desired, observed)!;
  }

  async reflectStatus(obj: KubeObject): Promise<Record<string, unknown> | null> {
    return this.#scripts(obj).first.reflectStatus!(obj) ?? null;
  }

  async interpretHealth(obj: KubeObject): Promise<Health> {
    return this.#scripts(obj).first.interpretHealth!(obj)!;
  }

  async aggregateStatus(template: KubeObject, items: readonly AggregatedStatusItem[]): Promise<KubeObject> {
    return this.#scripts(template).first.aggregateStatus!(template, items)!;
  }

  async getDependencies(obj: KubeObject): Promise<DependentObjectReference[]> {
    const all = this.#scripts(obj).dependencies.flatMap((fn) => fn(obj) ?? []);
    const seen = new Set<string>();
    const unique = all.filter((d) => {
      const key = JSON.stringify([d.apiVersion, d.kind, d.namespace, d.name ?? "", d.labelSelector ?? null]);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    return sortDependencies(unique);
  }
}
