/**
 * Stages for custom resources, from a YAML file (`karmada member-sim --stages file.yaml`): an
 * operator's effect on its resources, without the operator. The file is a list of stages:
 *
 *   - name: flink-running                    # unique
 *     apiVersion: flink.apache.org/v1beta1   # the custom resource's group/version ...
 *     kind: FlinkDeployment                  # ... and kind
 *     delayMs: 500                           # optional: wait this long once the stage applies
 *     when:                                  # optional, default {missing: status}
 *       missing: status.jobStatus.jobID      #   while this field is absent, or
 *     # when: {equals: {status.jobStatus.state: DEPLOYED}}   while fields have these values, or
 *     # when: once                           #   once per object generation (in memory)
 *     set:
 *       status:                              # merged into the status (JSON merge patch)
 *         jobStatus:
 *           jobID: ${id}                     # placeholders: ${id} (32 hex), ${uuid}, ${name},
 *           state: RUNNING                   # ${namespace}, ${uid}, ${generation}, ${now}
 *
 * For each object the first stage (in file order) whose `when` holds applies, so stages can
 * chain (missing → DEPLOYED, equals DEPLOYED → RUNNING). A string that is exactly
 * `${generation}` becomes a number. Stages start once the kind is served (its CRD installed
 * and established, e.g. propagated by Karmada), and stop when the CRD goes.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { parse } from "yaml";
import { rfc3339, type StoredObject } from "../api/meta.ts";
import type { ResourceRef } from "../client/client.ts";
import type { Logger } from "../log.ts";
import { deepEqual } from "../machinery/equality.ts";
import { type RunningController, runController } from "../runtime/controller.ts";
import type { Informer, InformerFactory } from "../runtime/informer.ts";
import type { Sim } from "./context.ts";
import { type Stage, stageController } from "./stages.ts";

export type StageCondition = { once: true } | { missing: string } | { equals: Record<string, unknown> };

export interface CustomStage {
  name: string;
  apiVersion: string;
  kind: string;
  delayMs: number;
  when: StageCondition;
  set: { status: Record<string, unknown> };
}

export class StageFileError extends Error {}

/** The placeholders `set` strings may use, as written in a stage file. */
export const PLACEHOLDERS = ["id", "uuid", "name", "namespace", "uid", "generation", "now"].map(
  (p) => `\${${p}}`,
);

const STAGE_KEYS = new Set(["name", "apiVersion", "kind", "delayMs", "when", "set"]);
const PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function parseWhen(v: unknown, at: string): StageCondition {
  if (v === undefined) return { missing: "status" };
  if (v === "once") return { once: true };
  if (!isPlainObject(v) || Object.keys(v).length !== 1) {
    throw new StageFileError(
      `${at}: must be "once", {missing: <field path>} or {equals: {<field path>: <value>}}`,
    );
  }
  if ("missing" in v) {
    if (typeof v.missing !== "string" || !PATH.test(v.missing)) {
      throw new StageFileError(`${at}.missing: must be a dotted field path such as status.jobStatus.jobID`);
    }
    return { missing: v.missing };
  }
  if ("equals" in v) {
    if (!isPlainObject(v.equals) || Object.keys(v.equals).length === 0) {
      throw new StageFileError(`${at}.equals: must map field paths to values, e.g. {status.state: DEPLOYED}`);
    }
    for (const path of Object.keys(v.equals)) {
      if (!PATH.test(path))
        throw new StageFileError(`${at}.equals: ${JSON.stringify(path)} is not a dotted field path`);
    }
    return { equals: v.equals };
  }
  throw new StageFileError(
    `${at}: unknown condition ${JSON.stringify(Object.keys(v)[0])} (use once, missing or equals)`,
  );
}

/** Parses and validates a stage file; errors name the offending entry and field. */
export function parseStageFile(text: string): CustomStage[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new StageFileError(`not valid YAML: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return [];
  if (!Array.isArray(doc)) throw new StageFileError("must be a YAML list of stages");
  const names = new Set<string>();
  return doc.map((entry, i): CustomStage => {
    const at = `stages[${i}]`;
    if (!isPlainObject(entry)) throw new StageFileError(`${at}: must be a mapping`);
    for (const k of Object.keys(entry)) {
      if (!STAGE_KEYS.has(k)) throw new StageFileError(`${at}: unknown field ${JSON.stringify(k)}`);
    }
    for (const k of ["name", "apiVersion", "kind"] as const) {
      if (typeof entry[k] !== "string" || entry[k] === "")
        throw new StageFileError(`${at}.${k}: required (a string)`);
    }
    const name = entry.name as string;
    if (names.has(name)) throw new StageFileError(`${at}.name: ${JSON.stringify(name)} is used twice`);
    names.add(name);
    const apiVersion = entry.apiVersion as string;
    if (!/^[a-z0-9.-]+\/[a-z0-9]+$/.test(apiVersion)) {
      throw new StageFileError(
        `${at}.apiVersion: must be <group>/<version> of a custom resource, got ${JSON.stringify(apiVersion)}`,
      );
    }
    const delayMs = entry.delayMs ?? 0;
    if (typeof delayMs !== "number" || !Number.isInteger(delayMs) || delayMs < 0) {
      throw new StageFileError(`${at}.delayMs: must be a non-negative integer`);
    }
    const set = entry.set;
    if (!isPlainObject(set) || !isPlainObject(set.status) || Object.keys(set).length !== 1) {
      throw new StageFileError(`${at}.set: must be a mapping with one key, status (a mapping)`);
    }
    return {
      name,
      apiVersion,
      kind: entry.kind as string,
      delayMs,
      when: parseWhen(entry.when, `${at}.when`),
      set: { status: set.status },
    };
  });
}

function readPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const part of path.split(".")) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

export interface CustomStageEnv {
  now: number;
  newId(): string;
  newUuid(): string;
}

/** Fills the placeholders of `set` for one object. */
export function render(value: unknown, obj: StoredObject, env: CustomStageEnv): unknown {
  if (typeof value === "string") {
    if (/^\$\{generation\}$/.test(value)) return obj.metadata.generation ?? 0;
    return value.replace(/\$\{(id|uuid|name|namespace|uid|generation|now)\}/g, (_m, key: string) => {
      switch (key) {
        case "id":
          return env.newId();
        case "uuid":
          return env.newUuid();
        case "name":
          return obj.metadata.name ?? "";
        case "namespace":
          return obj.metadata.namespace ?? "";
        case "uid":
          return obj.metadata.uid ?? "";
        case "generation":
          return String(obj.metadata.generation ?? 0);
        default:
          return rfc3339(env.now);
      }
    });
  }
  if (Array.isArray(value)) return value.map((v) => render(v, obj, env));
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, render(v, obj, env)]));
  return value;
}

/** A file stage as a runnable stage. `done` remembers `once` stages per (uid, generation). */
export function toStage(
  cs: CustomStage,
  done: Set<string>,
): Stage<CustomStageEnv> & { applied(obj: StoredObject): void } {
  const onceKey = (obj: StoredObject) => `${cs.name}/${obj.metadata.uid}/${obj.metadata.generation ?? 0}`;
  const when = cs.when;
  return {
    name: cs.name,
    delayMs: cs.delayMs,
    when(obj) {
      if ("once" in when) return !done.has(onceKey(obj));
      if ("missing" in when) return readPath(obj, when.missing) === undefined;
      return Object.entries(when.equals).every(([path, v]) => deepEqual(readPath(obj, path), v));
    },
    next: (obj, env) => ({ status: render(cs.set.status, obj, env) as Record<string, unknown> }),
    applied(obj) {
      if ("once" in when) done.add(onceKey(obj));
    },
  };
}

export const defaultCustomStageEnv =
  (now: () => number): (() => CustomStageEnv) =>
  () => ({
    now: now(),
    newId: () => randomBytes(16).toString("hex"),
    newUuid: () => randomUUID(),
  });

interface Running {
  informer: Informer;
  controller: RunningController;
}

/** Starts and stops the stage runners of each kind as its CRD comes and goes. */
export class CustomStageRunners {
  #sim: Sim;
  #factory: InformerFactory;
  #byKind = new Map<string, CustomStage[]>();
  #running = new Map<string, Running>();
  #done = new Set<string>();
  #log: Logger;
  #monotonic: () => number;
  #stopped = false;
  #removeHandler: (() => void) | undefined;

  constructor(sim: Sim, factory: InformerFactory, stages: readonly CustomStage[], monotonic: () => number) {
    this.#sim = sim;
    this.#factory = factory;
    this.#log = sim.log.child({ component: "custom-stages" });
    this.#monotonic = monotonic;
    for (const s of stages) {
      const k = `${s.apiVersion}/${s.kind}`;
      this.#byKind.set(k, [...(this.#byKind.get(k) ?? []), s]);
    }
  }

  start(): void {
    if (this.#byKind.size === 0) return;
    const sync = (): void =>
      void this.#sync().catch((err) => this.#log.error(err, "custom stage sync failed"));
    this.#removeHandler = this.#sim.informers.crds.addHandler({
      onAdd: sync,
      onUpdate: sync,
      onDelete: sync,
    });
    sync();
  }

  stop(): void {
    this.#stopped = true;
    this.#removeHandler?.();
    for (const r of this.#running.values()) {
      r.controller.stop();
      r.informer.stop();
    }
    this.#running.clear();
  }

  /** The kinds whose stages run now. */
  runningKinds(): string[] {
    return [...this.#running.keys()];
  }

  /** The CRD serving a kind, when established. */
  #crdFor(apiVersion: string, kind: string): StoredObject | undefined {
    const [group, version] = apiVersion.split("/");
    return this.#sim.informers.crds.list().find((crd) => {
      const spec = (crd.spec ?? {}) as {
        group?: string;
        names?: { kind?: string };
        versions?: Array<{ name: string; served?: boolean }>;
      };
      const established = (
        (crd.status ?? {}) as { conditions?: Array<{ type: string; status: string }> }
      ).conditions?.some((c) => c.type === "Established" && c.status === "True");
      return (
        established &&
        !crd.metadata.deletionTimestamp &&
        spec.group === group &&
        spec.names?.kind === kind &&
        (spec.versions ?? []).some((v) => v.name === version && v.served !== false)
      );
    });
  }

  async #sync(): Promise<void> {
    for (const [k, stages] of this.#byKind) {
      if (this.#stopped) return;
      const { apiVersion, kind } = stages[0]!;
      const crd = this.#crdFor(apiVersion, kind);
      const running = this.#running.get(k);
      if (!crd) {
        if (running) {
          running.controller.stop();
          running.informer.stop();
          this.#running.delete(k);
          this.#log.info("custom stages stopped", { kind: k });
        }
        continue;
      }
      if (running) continue;
      let res: ResourceRef;
      try {
        res = await this.#sim.client.resourceFor(apiVersion, kind);
      } catch {
        continue; // Not served yet; the CRD's next update brings us back.
      }
      if (this.#stopped || this.#running.has(k)) continue;
      const version = apiVersion.split("/")[1];
      const hasStatus = () => {
        const current = this.#crdFor(apiVersion, kind);
        const versions = (
          (current?.spec ?? {}) as { versions?: Array<{ name: string; subresources?: { status?: unknown } }> }
        ).versions;
        return versions?.find((v) => v.name === version)?.subresources?.status !== undefined;
      };
      const informer = this.#factory.informer(res);
      informer.start();
      const runnable = stages.map((s) => toStage(s, this.#done));
      const controller = runController(
        stageController({
          name: `stages-${kind.toLowerCase()}`,
          informer,
          resource: res,
          stages: runnable,
          env: defaultCustomStageEnv(this.#sim.now),
          client: this.#sim.client,
          monotonic: this.#monotonic,
          statusSubresource: hasStatus,
          onApplied: (stage, obj) => runnable.find((s) => s.name === stage)?.applied(obj),
        }),
        { log: this.#sim.log },
      );
      this.#running.set(k, { informer, controller });
      this.#log.info("custom stages started", { kind: k });
    }
  }
}
