/**
 * `karmadactl interpret`: check a ResourceInterpreterCustomization's scripts (`--check`), run
 * one of its operations locally on objects read from files, stdin (`-`) or URLs and print the
 * results, or edit its scripts in an editor (`--edit`, see interpret-edit.ts), as upstream's
 * command does (same rule names, result names and layout). Runs on the same Lua engine as the
 * controllers; needs no control plane.
 */
import { readFile } from "node:fs/promises";
import { parseAllDocuments } from "yaml";
import { CUSTOMIZATION_RULES } from "../../api/karmada/admission/interpreter.ts";
import type { KubeObject, StoredObject } from "../../api/meta.ts";
import { CustomizationSource } from "../../interpreter/customizations.ts";
import { LuaEngine } from "../../interpreter/lua/engine.ts";
import { type Customizations, LUA_RULES, luaInterpreter } from "../../interpreter/lua/operations.ts";
import type { InterpreterOperation } from "../../interpreter/types.ts";
import type { AggregatedStatusItem } from "../../karmada/types.ts";
import { jsonToYaml } from "../../overrides/yaml-v2.ts";
import { CommandError, type CommandIO } from "../io.ts";
import { type EditSource, runEdit } from "./interpret-edit.ts";

export interface InterpretOptions {
  filenames: string[];
  check: boolean;
  /** Edit the one customization in -f (or create one in an -f file without any). */
  edit?: boolean;
  /** With `edit`: show each rule's document in the edited file. */
  showDoc?: boolean;
  /** The environment KUBE_EDITOR / EDITOR are read from with `edit` (default: the process's). */
  env?: Record<string, string | undefined>;
  operation?: string;
  desiredFile?: string;
  observedFile?: string;
  statusFile?: string;
  desiredReplica: number;
}

/** Upstream's rules, in upstream's order (the same table admission checks): operation and customization field. */
const RULES = CUSTOMIZATION_RULES.map((r) => ({
  name: r.operation as InterpreterOperation,
  field: r.field as keyof Customizations,
}));

/** Reads a file, `-` (stdin) or an http(s) URL. */
async function readSource(source: string, stdin: () => Promise<string>): Promise<string> {
  if (source === "-") return stdin();
  if (/^https?:\/\//.test(source)) {
    const res = await fetch(source);
    if (!res.ok)
      throw new CommandError(
        `unable to read URL "${source}", server reported ${res.status} ${res.statusText}`,
      );
    return res.text();
  }
  try {
    return await readFile(source, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CommandError(
      code === "ENOENT"
        ? `the path "${source}" does not exist`
        : `unable to read "${source}": ${(err as Error).message}`,
    );
  }
}

/** Every YAML or JSON document in `text` (a `kind: List` contributes its items). */
function documents(text: string, source: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new CommandError(`error parsing ${source}: ${doc.errors[0]!.message}`);
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) continue;
    if (typeof value !== "object" || Array.isArray(value))
      throw new CommandError(`error parsing ${source}: a document must be an object`);
    const obj = value as Record<string, unknown>;
    if (obj.kind === "List" && Array.isArray(obj.items))
      out.push(...(obj.items as Array<Record<string, unknown>>));
    else out.push(obj);
  }
  return out;
}

function oneObject(docs: Array<Record<string, unknown>>, source: string): KubeObject {
  if (docs.length !== 1)
    throw new CommandError(`${source}: expected exactly one object, found ${docs.length}`);
  return docs[0] as KubeObject;
}

/** Go's tabwriter as kubectl sets it up (min width 6, padding 3): tab-terminated cells aligned per column block. */
function tabwrite(text: string): string {
  const lines = text.split("\n");
  const cells = lines.map((l) => l.split("\t"));
  const widths = cells.map((c) => new Array<number>(c.length - 1).fill(0));
  const format = (start: number, end: number, col: number): void => {
    let i = start;
    while (i < end) {
      if (cells[i]!.length - 1 <= col) {
        i++;
        continue;
      }
      let j = i;
      let width = 6;
      while (j < end && cells[j]!.length - 1 > col) width = Math.max(width, cells[j++]![col]!.length + 3);
      for (let k = i; k < j; k++) widths[k]![col] = width;
      format(i, j, col + 1);
      i = j;
    }
  };
  format(0, lines.length, 0);
  return lines
    .map((_, i) =>
      cells[i]!.map((c, k) => (k < cells[i]!.length - 1 ? c.padEnd(widths[i]![k]!) : c)).join(""),
    )
    .join("\n");
}

function asCustomization(doc: Record<string, unknown>, source: string): StoredObject {
  if (doc.kind !== "ResourceInterpreterCustomization" || doc.apiVersion !== "config.karmada.io/v1alpha1") {
    throw new CommandError(
      `${source}: not a ResourceInterpreterCustomization (apiVersion config.karmada.io/v1alpha1), but ${String(doc.apiVersion)} ${String(doc.kind)}`,
    );
  }
  return doc as StoredObject;
}

function customizationsOf(ric: StoredObject): Customizations {
  return ((ric.spec as { customizations?: Customizations } | undefined)?.customizations ??
    {}) as Customizations;
}

async function runCheck(
  engine: LuaEngine,
  loaded: Array<{ source: string; doc: Record<string, unknown> }>,
  io: CommandIO,
): Promise<void> {
  let out = "";
  let failed = false;
  for (const { source, doc } of loaded) {
    out += "-----------------------------------\n";
    const name = (doc.metadata as { name?: string } | undefined)?.name;
    out += `SOURCE: ${name || source}\n`;
    if (doc.kind !== "ResourceInterpreterCustomization") {
      failed = true;
      out += `object is not a ResourceInterpreterCustomization: ${String(doc.kind)}\n`;
      continue;
    }
    const target =
      (doc.spec as { target?: { apiVersion?: string; kind?: string } } | undefined)?.target ?? {};
    if (!target.kind) {
      failed = true;
      out += "target.kind no set\n";
      continue;
    }
    if (!target.apiVersion) {
      failed = true;
      out += "target.apiVersion no set\n";
      continue;
    }
    out += `TARGET: ${target.apiVersion} ${target.kind}\t\nRULERS:\n`;
    const customizations = customizationsOf(doc as StoredObject);
    for (const rule of RULES) {
      out += `    ${rule.name}:\t`;
      const script = customizations[rule.field]?.luaScript;
      if (!script) {
        out += "UNSET\n";
        continue;
      }
      try {
        engine.checkScript(script, LUA_RULES[rule.field].functionName);
        out += "PASS\n";
      } catch (err) {
        failed = true;
        out += `ERROR: ${(err as Error).message.trim()}\t\n`;
      }
    }
  }
  io.stdout.write(tabwrite(out));
  if (failed) throw new CommandError("some scripts did not pass the check");
}

interface Args {
  desired?: KubeObject;
  observed?: KubeObject;
  status?: AggregatedStatusItem[];
  replica: number;
}

function desiredOf(a: Args): KubeObject {
  if (!a.desired) throw new Error("desired, desired-file options are not set");
  return a.desired;
}
function observedOf(a: Args): KubeObject {
  if (!a.observed) throw new Error("observed, observed-file options are not set");
  return a.observed;
}
function objectOf(a: Args): KubeObject {
  if (!a.desired && !a.observed) throw new Error("desired-file, observed-file options are not set");
  if (a.desired && a.observed)
    throw new Error("you can not specify both desired-file and observed-file options");
  return (a.desired ?? a.observed)!;
}

/** Runs one rule; the named results in upstream's order. */
async function execute(
  engine: LuaEngine,
  rics: StoredObject[],
  rule: (typeof RULES)[number],
  a: Args,
): Promise<Array<[string, unknown]>> {
  const source = new CustomizationSource("interpret", engine);
  source.set(rics);
  const enabled = (obj: KubeObject): void => {
    if (!source.handles(rule.name, obj.apiVersion ?? "", obj.kind ?? ""))
      throw new Error("rule is not enabled");
  };
  switch (rule.name) {
    case "Retain": {
      const desired = desiredOf(a);
      const observed = observedOf(a);
      enabled(desired);
      return [["retained", await source.retain(desired, observed)]];
    }
    case "InterpretReplica": {
      const obj = objectOf(a);
      enabled(obj);
      const r = await source.getReplicas(obj);
      return [
        ["replica", r.replicas],
        ["requires", r.requirements ?? null],
      ];
    }
    case "InterpretComponent": {
      const obj = objectOf(a);
      const ric = rics.find(
        (c) =>
          (c.spec as { target?: { apiVersion?: string; kind?: string } }).target?.apiVersion ===
            obj.apiVersion &&
          (c.spec as { target?: { kind?: string } }).target?.kind === obj.kind &&
          customizationsOf(c).componentResource?.luaScript,
      );
      const scripts = ric ? luaInterpreter(engine, customizationsOf(ric)) : undefined;
      if (!scripts?.getComponents) throw new Error("rule is not enabled");
      return [["components", scripts.getComponents(obj)]];
    }
    case "ReviseReplica": {
      const obj = objectOf(a);
      enabled(obj);
      return [["revised", await source.reviseReplica(obj, a.replica)]];
    }
    case "InterpretStatus": {
      const obj = objectOf(a);
      enabled(obj);
      return [["status", await source.reflectStatus(obj)]];
    }
    case "AggregateStatus": {
      const obj = objectOf(a);
      enabled(obj);
      return [["aggregatedStatus", await source.aggregateStatus(obj, a.status ?? [])]];
    }
    case "InterpretHealth": {
      const obj = objectOf(a);
      enabled(obj);
      return [["healthy", (await source.interpretHealth(obj)) === "Healthy"]];
    }
    case "InterpretDependency": {
      const obj = objectOf(a);
      enabled(obj);
      return [["dependencies", await source.getDependencies(obj)]];
    }
  }
}

export async function runInterpret(
  opts: InterpretOptions,
  io: CommandIO,
  stdin: () => Promise<string> = async () => {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  },
): Promise<void> {
  if (opts.filenames.length === 0)
    throw new CommandError(
      "must specify -f FILENAME: the file(s) with the ResourceInterpreterCustomizations to interpret",
    );
  const rule = opts.operation
    ? RULES.find((r) => r.name.toLowerCase() === opts.operation!.toLowerCase())
    : undefined;
  if (opts.operation && !rule) {
    throw new CommandError(
      `operation ${opts.operation} is not supported. Use one of: ${RULES.map((r) => r.name).join(", ")}`,
    );
  }
  if (opts.check && opts.edit) throw new CommandError("you can't set both --check and --edit options");
  const files: EditSource[] = [];
  for (const f of opts.filenames) {
    const text = await readSource(f, stdin);
    files.push({ source: f, text, docs: documents(text, f) });
  }
  if (opts.edit) {
    return runEdit(files, { showDoc: opts.showDoc === true, env: opts.env ?? { ...process.env } }, io);
  }
  const loaded = files.flatMap(({ source, docs }) => docs.map((doc) => ({ source, doc })));
  const engine = await LuaEngine.create();
  if (opts.check) return runCheck(engine, loaded, io);
  if (!rule) throw new CommandError("operation is not set for executing");

  const rics = loaded.map(({ source, doc }) => asCustomization(doc, source));
  const load = async (file: string | undefined) =>
    file ? oneObject(documents(await readSource(file, stdin), file), file) : undefined;
  const desired = await load(opts.desiredFile);
  const observed = await load(opts.observedFile);
  const status = opts.statusFile
    ? (documents(
        await readSource(opts.statusFile, stdin),
        opts.statusFile,
      ) as unknown as AggregatedStatusItem[])
    : undefined;
  let results: Array<[string, unknown]>;
  try {
    results = await execute(engine, rics, rule, {
      ...(desired ? { desired } : {}),
      ...(observed ? { observed } : {}),
      ...(status ? { status } : {}),
      replica: opts.desiredReplica,
    });
  } catch (err) {
    throw new CommandError(`Execute ${rule.name} error: ${(err as Error).message}`);
  }
  for (const [i, [name, value]] of results.entries()) {
    io.stdout.write(`---\n# [${i + 1}/${results.length}] ${name}:\n`);
    io.stdout.write(jsonToYaml(JSON.stringify(value ?? null)));
  }
}
