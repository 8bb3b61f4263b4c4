import { BUILTIN_PACKAGES } from "./messages/index.ts";
import { type MessageDef, type PackageTable, parsePackageTable } from "./schema.ts";

/** Message definitions by name and top-level kinds by (apiVersion, kind). Immutable once built. */
export interface MessageRegistry {
  /** The message with this qualified name, e.g. "core.v1.Pod"; throws if there is none. */
  message(name: string): MessageDef;
  /** The message of a top-level kind, or undefined when we have none. */
  kind(apiVersion: string, kind: string): MessageDef | undefined;
  readonly messages: readonly MessageDef[];
  readonly kinds: readonly { apiVersion: string; kind: string; message: string }[];
}

/** Parses the tables and checks that every referenced message exists. */
export function buildRegistry(tables: readonly PackageTable[]): MessageRegistry {
  const byName = new Map<string, MessageDef>();
  for (const table of tables) {
    for (const def of parsePackageTable(table)) {
      if (byName.has(def.name)) throw new Error(`message ${def.name} is defined twice`);
      byName.set(def.name, def);
    }
  }
  for (const def of byName.values()) {
    for (const field of def.fields) {
      if (field.type.kind === "message" && !byName.has(field.type.name)) {
        throw new Error(
          `${def.name}.${field.json || "(inline)"} refers to unknown message ${field.type.name}`,
        );
      }
    }
  }
  const kinds: { apiVersion: string; kind: string; message: string }[] = [];
  const byKind = new Map<string, MessageDef>();
  const shared = new Map<string, MessageDef>();
  const lookup = (table: PackageTable, kind: string): MessageDef => {
    const def = byName.get(`${table.package}.${kind}`);
    if (!def) throw new Error(`${table.apiVersion} kind ${kind} has no message in package ${table.package}`);
    return def;
  };
  for (const table of tables) {
    for (const kind of table.kinds) {
      const def = lookup(table, kind);
      byKind.set(`${table.apiVersion}/${kind}`, def);
      kinds.push({ apiVersion: table.apiVersion, kind, message: def.name });
    }
    for (const kind of table.sharedKinds ?? []) {
      const def = lookup(table, kind);
      shared.set(kind, def);
      kinds.push({ apiVersion: table.apiVersion, kind, message: def.name });
    }
  }
  return {
    message(name) {
      const def = byName.get(name);
      if (!def) throw new Error(`unknown protobuf message ${name}`);
      return def;
    },
    kind(apiVersion, kind) {
      return byKind.get(`${apiVersion}/${kind}`) ?? shared.get(kind);
    },
    messages: [...byName.values()],
    kinds,
  };
}

export const builtinRegistry: MessageRegistry = buildRegistry(BUILTIN_PACKAGES);
