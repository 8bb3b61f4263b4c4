/**
 * Command-line options declared once, as data: a table maps each field of an options object
 * to its flag (upstream's name), help, default and value type. From one table come the
 * commander options (`addOptions`), the typed, checked and frozen options object
 * (`optionsFrom`), the defaults (`defaultsOf`) and the flags that hand the same values to
 * another process (`argsFor`).
 *
 * Commander only collects the text of each flag; every value, the defaults included, is read
 * by the table's types, so a bad value is one error naming the flag, from one place.
 */
import { type Command, Option } from "commander";
import { count as readCount, duration as readDuration, port as readPort } from "../cli/flags.ts";

/** How a flag's text becomes a value. */
export interface OptionType<T> {
  /**
   * The value's placeholder in help: `<duration>`; `[bool]` for a flag that may be given
   * alone (meaning true); "" for a switch that takes no value. Only boolean types use the last two.
   */
  readonly arg: string;
  /** The value the text means; throws an Error whose message says what it must be. */
  parse(text: string): T;
  /** The value as a flag's text, read back by `parse` to the same value. */
  format(value: T): string;
  /** Each use adds to the value (`--x a,b --x c`): `parse` reads the uses joined with commas. */
  readonly repeatable?: boolean;
  /** The only values allowed, listed by help. */
  readonly choices?: readonly string[];
  /** Help shows a default as the table writes it (`5s`), not as the value it means (300000). */
  readonly defaultAsWritten?: boolean;
}

/** One flag and the field it fills. */
export interface OptionSpec<T> {
  /** The flag as upstream names it, e.g. `--cluster-monitor-period`. */
  readonly flag: `--${string}`;
  readonly type: OptionType<T>;
  readonly help: string;
  /** The placeholder in help, when the type's says too little (`<ns>` rather than `<value>`). */
  readonly arg?: string;
  /** In the flag's own syntax (`"5s"`), read by the type, or the value itself. */
  readonly default?: T | string;
  /** `optionsFrom` refuses flags that leave it out. */
  readonly required?: true;
  /** Accepted, but left out of help. */
  readonly hidden?: true;
  /** Help of `--no-<name>`, which sets a boolean to false, when there is one. */
  readonly negation?: string;
}

/** Fields and the options that fill them. */
export type OptionTable = { readonly [field: string]: OptionSpec<unknown> };

/** The type of the value one option gives. */
export type OptionValue<S> = S extends { readonly type: OptionType<infer T> } ? T : never;

type AlwaysSet<S> = S extends { readonly default: unknown } | { readonly required: true } ? true : false;

/** What `optionsFrom` gives: fields with a default or required are always there, the rest may be missing. */
export type OptionValues<Table extends OptionTable> = {
  readonly [F in keyof Table as AlwaysSet<Table[F]> extends true ? F : never]: OptionValue<Table[F]>;
} & {
  readonly [F in keyof Table as AlwaysSet<Table[F]> extends true ? never : F]?: OptionValue<Table[F]>;
};

/** What `defaultsOf` gives: the fields that have a default. */
export type OptionDefaults<Table extends OptionTable> = {
  readonly [F in keyof Table as Table[F] extends { readonly default: unknown } ? F : never]: OptionValue<
    Table[F]
  >;
};

/** A flag's value is not one its type reads, or a required flag is missing. */
export class OptionError extends Error {
  readonly flag: string;
  constructor(flag: string, message: string) {
    super(message);
    this.name = "OptionError";
    this.flag = flag;
  }
}

/**
 * A table, checked: each default must be of its option's type (or text for the type to read).
 * The literal types survive, so `OptionValues` knows which fields always have a value.
 */
export function optionTable<const Table extends { readonly [F in keyof Table]: SpecOf<Table[F]> }>(
  table: Table,
): Table {
  return table;
}

type SpecOf<S> = S extends { readonly type: OptionType<infer T> } ? OptionSpec<T> : OptionSpec<unknown>;

// ---------------------------------------------------------------------------------------------
// Value types

/** A Go duration (`500ms`, `10s`, `1h30m`), not negative, in milliseconds. */
export const duration: OptionType<number> = {
  arg: "<duration>",
  parse(text) {
    const ms = readDuration(text);
    if (ms < 0) throw new Error("must not be negative");
    return ms;
  },
  format: (ms) => `${ms}ms`,
  defaultAsWritten: true,
};

/** A non-negative integer. */
export const count: OptionType<number> = { arg: "<n>", parse: readCount, format: String };

/** A TCP port, 0 to 65535. */
export const port: OptionType<number> = { arg: "<n>", parse: readPort, format: String };

/** A boolean as Go's flags read it: `--x` alone is true, else `--x=true` or `--x=false`. */
export const bool: OptionType<boolean> = {
  arg: "[bool]",
  parse(text) {
    if (text === "true") return true;
    if (text === "false") return false;
    throw new Error("must be true or false");
  },
  format: String,
};

/** A switch that takes no value: given, it is true. */
export const toggle: OptionType<boolean> = { ...bool, arg: "" };

/** Any text. */
export const text: OptionType<string> = { arg: "<value>", parse: (t) => t, format: (t) => t };

/** Comma-separated and repeatable: `--controllers a,b --controllers c` is `[a, b, c]`. */
export const list: OptionType<string[]> = {
  arg: "<list>",
  parse: (t) => t.split(",").filter((v) => v !== ""),
  format: (values) => values.join(","),
  repeatable: true,
};

/** One of a fixed set of words, listed by help unless `inHelp` is false (the help text names them). */
export function oneOf<const C extends readonly string[]>(
  choices: C,
  { inHelp = true }: { inHelp?: boolean } = {},
): OptionType<C[number]> {
  return {
    arg: "<value>",
    parse(t) {
      if (!(choices as readonly string[]).includes(t))
        throw new Error(`must be one of ${choices.join(", ")}`);
      return t as C[number];
    },
    format: (v) => v,
    ...(inHelp ? { choices } : {}),
  };
}

/** Bounds of a number; `exclusive` leaves the bounds themselves out. */
export interface NumberRange {
  min?: number;
  max?: number;
  exclusive?: boolean;
}

function rangeRule({ min, max, exclusive }: NumberRange): string {
  if (min !== undefined && max !== undefined)
    return exclusive ? `must be between ${min} and ${max}` : `must be from ${min} to ${max}`;
  if (min === 0 && !exclusive) return "must be a non-negative number";
  if (min !== undefined) return exclusive ? `must be greater than ${min}` : `must be at least ${min}`;
  if (max !== undefined) return exclusive ? `must be less than ${max}` : `must be at most ${max}`;
  return "must be a number";
}

/** A finite number (`0.5`, `1e3`) within `range`. */
export function number(range: NumberRange = {}): OptionType<number> {
  const { min = -Infinity, max = Infinity, exclusive = false } = range;
  const rule = rangeRule(range);
  return {
    arg: "<n>",
    parse(t) {
      const n = Number(t);
      const inside = exclusive ? n > min && n < max : n >= min && n <= max;
      if (t.trim() === "" || !Number.isFinite(n) || !inside) throw new Error(rule);
      return n;
    },
    format: String,
  };
}

/** Text checked by `check`, which throws an Error saying what is wrong. */
export function checkedText(check: (text: string) => void): OptionType<string> {
  return {
    ...text,
    parse(t) {
      check(t);
      return t;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// From a table

const entries = (table: OptionTable): Array<[string, OptionSpec<unknown>]> => Object.entries(table);

function helpOf(spec: OptionSpec<unknown>): string {
  const extras: string[] = [];
  const choices = spec.type.choices;
  if (choices) extras.push(`choices: ${choices.map((c) => JSON.stringify(c)).join(", ")}`);
  if (spec.default !== undefined) {
    const shown =
      spec.type.defaultAsWritten && typeof spec.default === "string"
        ? spec.default
        : JSON.stringify(defaultOf(spec));
    extras.push(`default: ${shown}`);
  }
  return extras.length > 0 ? `${spec.help} (${extras.join(", ")})` : spec.help;
}

/** The commander option of `spec`: it collects text only (no parser, no default). */
function commanderOption(spec: OptionSpec<unknown>): Option {
  const arg = spec.arg ?? spec.type.arg;
  const option = new Option(arg ? `${spec.flag} ${arg}` : spec.flag, helpOf(spec));
  // A flag upstream spells `--no-...` (`--no-execute-taint-eviction-purge-mode`) is a name of
  // its own here, not the negation of another flag.
  option.negate = false;
  if (spec.type.repeatable) {
    option.argParser((t: string, previous: string[] | undefined) => [...(previous ?? []), t]);
  }
  if (spec.hidden) option.hideHelp();
  return option;
}

/** The key commander keeps a flag's text under. */
const keyOf = (spec: OptionSpec<unknown>): string => commanderOption(spec).attributeName();

/** (a) Adds the table's flags to `cmd`, in the table's order. */
export function addOptions(cmd: Command, table: OptionTable): Command {
  for (const [, spec] of entries(table)) {
    cmd.addOption(commanderOption(spec));
    if (spec.negation !== undefined) {
      const negation = new Option(`--no-${spec.flag.slice(2)}`, spec.negation);
      if (spec.hidden) negation.hideHelp();
      cmd.addOption(negation);
    }
  }
  return cmd;
}

function readValue(spec: OptionSpec<unknown>, given: unknown): unknown {
  // `--x` alone or `--no-x`: only boolean types take no value.
  if (typeof given === "boolean") return given;
  const t = Array.isArray(given) ? given.join(",") : String(given);
  try {
    const value = spec.type.parse(t);
    return Array.isArray(value) ? Object.freeze(value) : value;
  } catch (err) {
    const shown = t === "" || /\s/.test(t) ? JSON.stringify(t) : t;
    throw new OptionError(spec.flag, `${spec.flag} ${shown}: ${(err as Error).message}`);
  }
}

function defaultOf(spec: OptionSpec<unknown>): unknown {
  const given = spec.default;
  if (given === undefined) return undefined;
  // A default written as the value is read back from its text too, so its type checks it.
  return readValue(
    spec,
    typeof given === "string" || typeof given === "boolean" ? given : spec.type.format(given),
  );
}

/**
 * (b) The options `flags` (commander's `opts()`, or any record under the same keys) give: each
 * flag read by its type, defaults for the flags left out, frozen. Throws an `OptionError`
 * naming the flag when a value is not valid or a required flag is missing.
 */
export function optionsFrom<const Table extends OptionTable>(
  table: Table,
  flags: Readonly<Record<string, unknown>>,
): OptionValues<Table> {
  const values: Record<string, unknown> = {};
  for (const [field, spec] of entries(table)) {
    const given = flags[keyOf(spec)];
    const value = given === undefined ? defaultOf(spec) : readValue(spec, given);
    if (value !== undefined) values[field] = value;
    else if (spec.required) throw new OptionError(spec.flag, `${spec.flag} is required`);
  }
  return Object.freeze(values) as OptionValues<Table>;
}

/** (c) The defaults of the table's options that have one, frozen. */
export function defaultsOf<const Table extends OptionTable>(table: Table): OptionDefaults<Table> {
  const values: Record<string, unknown> = {};
  for (const [field, spec] of entries(table)) {
    const value = defaultOf(spec);
    if (value !== undefined) values[field] = value;
  }
  return Object.freeze(values) as OptionDefaults<Table>;
}

/**
 * The flags that give another process `values` (`--name=value`; a switch is named when true),
 * for the fields of the table that `values` has.
 */
export function argsFor<const Table extends OptionTable>(
  table: Table,
  values: { readonly [F in keyof Table]?: OptionValue<Table[F]> },
): string[] {
  const args: string[] = [];
  for (const [field, spec] of entries(table)) {
    const value = (values as Record<string, unknown>)[field];
    if (value === undefined) continue;
    if (spec.type.arg === "") {
      if (value === true) args.push(spec.flag);
    } else {
      args.push(`${spec.flag}=${spec.type.format(value)}`);
    }
  }
  return args;
}

type Merged<Tables extends readonly OptionTable[]> = Tables extends readonly [
  infer First extends OptionTable,
  ...infer Rest extends readonly OptionTable[],
]
  ? First & Merged<Rest>
  : unknown;

/**
 * One table of several (a command's: its own options and the shared ones), in their order;
 * throws if two declare the same field or flag, which would silently shadow one another.
 */
export function mergeOptions<const Tables extends readonly OptionTable[]>(...tables: Tables): Merged<Tables> {
  const merged: Record<string, OptionSpec<unknown>> = {};
  const flags = new Set<string>();
  for (const table of tables) {
    for (const [field, spec] of entries(table)) {
      if (field in merged) throw new Error(`two options fill the field ${field}`);
      if (flags.has(spec.flag)) throw new Error(`two options declare ${spec.flag}`);
      merged[field] = spec;
      flags.add(spec.flag);
    }
  }
  return merged as Merged<Tables>;
}

/** The values of `values` (read from a larger table) that `table` declares, frozen. */
export function pickValues<const Table extends OptionTable>(
  values: { readonly [F in keyof Table]?: OptionValue<Table[F]> },
  table: Table,
): Partial<OptionValues<Table>> {
  const picked: Record<string, unknown> = {};
  for (const field of Object.keys(table)) {
    const value = (values as Record<string, unknown>)[field];
    if (value !== undefined) picked[field] = value;
  }
  return Object.freeze(picked) as Partial<OptionValues<Table>>;
}

/** The options of `table` named by `fields`, in the table's order. */
export function pickOptions<const Table extends OptionTable, const F extends keyof Table & string>(
  table: Table,
  fields: readonly F[],
): Pick<Table, F> {
  return Object.fromEntries(entries(table).filter(([field]) => fields.includes(field as F))) as Pick<
    Table,
    F
  >;
}
