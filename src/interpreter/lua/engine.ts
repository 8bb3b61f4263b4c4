/**
 * The Lua engine interpreter customizations run on: one Lua 5.4 state in its own WebAssembly
 * instance, compiled scripts cached by their text, every call in a fresh sandbox (see
 * `sandbox.ts`) with a time budget and a memory limit. Calls are synchronous; only creating
 * an engine is not (the module is compiled once per engine).
 *
 * A failing call (a Lua error, a loop that outlives its budget, an allocation past its limit)
 * throws a LuaError and leaves the engine usable; the next call starts clean.
 */

import * as kube from "./kube.ts";
import { formatLuaNumber } from "./numbers.ts";
import { orderTableConstructors } from "./ordered-tables.ts";
import { SANDBOX_PRELUDE } from "./sandbox.ts";
import { type Json, LuaConversionError, LuaValues } from "./values.ts";
import {
  LUA_ERRMEM,
  LUA_MASKCOUNT,
  LUA_MULTRET,
  LUA_OK,
  LUA_REGISTRYINDEX,
  type LuaModule,
  type LuaState,
  LuaType,
  loadLuaModule,
  type Pointer,
} from "./wasm.ts";

export interface LuaLimits {
  /** Wall-clock time one call may run, in ms. Upstream gives each call 1 s. */
  budgetMs?: number;
  /** Bytes one call may allocate on top of what the state already holds. */
  maxMemory?: number;
  /**
   * VM instructions one call may execute (counted in steps of 1000). A bound that, unlike the
   * clock, gives the same answer on every machine and under any load.
   */
  maxInstructions?: number;
}

export interface LuaEngineOptions extends LuaLimits {
  /** How many compiled scripts to keep (least recently used go first). */
  cacheSize?: number;
  /** Monotonic clock in ms, for the budget. */
  now?: () => number;
}

export interface LuaCallOptions extends LuaLimits {
  /** How many results to return; missing ones are `null`. Default 1. */
  results?: number;
}

export type LuaErrorReason =
  /** The script does not compile. */
  | "compile"
  /** An argument cannot be handed to Lua (nested too deeply). */
  | "argument"
  /** The script raised an error (or a library did). */
  | "runtime"
  /** The call ran past its time budget. */
  | "budget"
  /** The call executed more VM instructions than it may. */
  | "instructions"
  /** The call allocated past its memory limit. */
  | "memory"
  /** The script does not define the function. */
  | "function"
  /** A result cannot be converted (a function, a sparse array, NaN, ...). */
  | "result";

export class LuaError extends Error {
  readonly reason: LuaErrorReason;
  constructor(reason: LuaErrorReason, message: string) {
    super(message);
    this.name = "LuaError";
    this.reason = reason;
  }
}

export const DEFAULT_BUDGET_MS = 1000;
export const DEFAULT_MAX_MEMORY = 32 * 1024 * 1024;
/**
 * About ten seconds of work on the machines we measured (~65 M instructions/s), so the 1 s
 * time budget ends a call first; it only decides on a machine many times faster, or when a
 * caller lowers it (see ADR 0007).
 */
export const DEFAULT_MAX_INSTRUCTIONS = 640_000_000;
const DEFAULT_CACHE_SIZE = 256;
/** The hook looks at the clock every this many VM instructions. */
const HOOK_INSTRUCTIONS = 1000;
const BUDGET_MESSAGE = "karmada-ts: Lua call stopped at its time or instruction bound";

type NativeHelper = (args: readonly kube.LuaArgument[]) => unknown;

/** Errors thrown by Lua's longjmp (a number in this build) must pass through our JS frames untouched. */
function isLuaUnwind(e: unknown): boolean {
  return !(e instanceof Error);
}

export class LuaEngine {
  readonly #m: LuaModule;
  readonly #L: LuaState;
  readonly #values: LuaValues;
  readonly #now: () => number;
  readonly #defaults: Required<LuaLimits>;
  readonly #cacheSize: number;
  /** Script text → registry reference of its compiled chunk, in least-recently-used order. */
  readonly #chunks = new Map<string, number>();
  readonly #functions: Pointer[] = [];
  readonly #chunkName: Pointer;
  readonly #textMode: Pointer;
  readonly #budgetMessage: Pointer;
  readonly #hook: Pointer;
  #invokeRef = 0;
  #probeRef = 0;
  #collectRef = 0;
  #closed = false;

  // Allocator state: bytes held by the state, and the ceiling while a call runs (0: none).
  #used = 0;
  #ceiling = 0;
  // Hook state.
  #deadline = 0;
  /** Hook firings left before the instruction bound is reached. */
  #stepsLeft = 0;
  #expired: "budget" | "instructions" | undefined;

  static async create(options: LuaEngineOptions = {}): Promise<LuaEngine> {
    return new LuaEngine(await loadLuaModule(), options);
  }

  private constructor(m: LuaModule, options: LuaEngineOptions) {
    this.#m = m;
    this.#now = options.now ?? (() => performance.now());
    this.#defaults = {
      budgetMs: options.budgetMs ?? DEFAULT_BUDGET_MS,
      maxMemory: options.maxMemory ?? DEFAULT_MAX_MEMORY,
      maxInstructions: options.maxInstructions ?? DEFAULT_MAX_INSTRUCTIONS,
    };
    this.#cacheSize = options.cacheSize ?? DEFAULT_CACHE_SIZE;
    this.#values = new LuaValues(m);
    this.#chunkName = this.#cString("=<string>");
    this.#textMode = this.#cString("t");
    this.#budgetMessage = this.#cString(BUDGET_MESSAGE);

    const alloc = m.addFunction(
      (_ud: number, ptr: Pointer, oldSize: number, newSize: number) => this.#allocate(ptr, oldSize, newSize),
      "iiiii",
    );
    this.#functions.push(alloc);
    this.#hook = m.addFunction((L: LuaState) => this.#onHook(L), "vii");
    this.#functions.push(this.#hook);

    this.#L = m.lua_newstate(alloc, 0);
    if (this.#L === 0) throw new Error("cannot create a Lua state");
    m.luaL_openlibs(this.#L);
    this.#runPrelude();
  }

  /**
   * Runs `functionName` from `script` with `args` (JSON values) and returns its results as
   * JSON, an empty table as `[]` (see `restoreEmptyTables`). Throws LuaError.
   */
  call(script: string, functionName: string, args: readonly unknown[], options: LuaCallOptions = {}): Json[] {
    const limits = this.#limits(options);
    const results = options.results ?? 1;
    const L = this.#open();
    const m = this.#m;
    const base = m.lua_gettop(L);
    try {
      const chunk = this.#compile(script, limits);
      m.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(this.#invokeRef));
      m.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(chunk));
      this.#values.pushString(L, functionName);
      if (m.lua_checkstack(L, args.length + 4) === 0) throw new LuaError("runtime", "too many arguments");
      try {
        for (const arg of args) this.#values.push(L, arg);
      } catch (e) {
        if (e instanceof LuaConversionError)
          throw new LuaError("argument", `cannot pass the object to Lua: ${e.message}`);
        throw e;
      }
      this.#protectedCall(2 + args.length, limits);
      const status = this.#values.readString(L, base + 1);
      if (status !== "ok") throw functionError(functionName, status);
      const out: Json[] = [];
      const top = m.lua_gettop(L);
      for (let i = 0; i < results; i++) {
        const idx = base + 2 + i;
        out.push(idx <= top ? this.#readResult(idx) : null);
      }
      return out;
    } finally {
      m.lua_settop(L, base);
    }
  }

  /**
   * Admission check: the script compiles and, run in a sandbox, defines `functionName`.
   * Throws LuaError ("compile", "function", or what running its top level raised).
   */
  checkScript(script: string, functionName: string, options: LuaLimits = {}): void {
    const limits = this.#limits(options);
    const L = this.#open();
    const m = this.#m;
    const base = m.lua_gettop(L);
    try {
      const chunk = this.#compile(script, limits);
      m.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(this.#probeRef));
      m.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(chunk));
      this.#values.pushString(L, functionName);
      this.#protectedCall(2, limits);
      const status = this.#values.readString(L, base + 1);
      if (status !== "ok") throw functionError(functionName, status);
    } finally {
      m.lua_settop(L, base);
    }
  }

  /** Bytes the Lua state holds now (live objects and garbage not yet collected). */
  get memoryUsed(): number {
    return this.#used;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#m.lua_close(this.#L);
    this.#values.dispose();
    for (const p of [this.#chunkName, this.#textMode, this.#budgetMessage]) this.#m.free(p);
    for (const f of this.#functions) this.#m.removeFunction(f);
  }

  #open(): LuaState {
    if (this.#closed) throw new Error("the Lua engine is closed");
    return this.#L;
  }

  #limits(options: LuaLimits): Required<LuaLimits> {
    return {
      budgetMs: options.budgetMs ?? this.#defaults.budgetMs,
      maxMemory: options.maxMemory ?? this.#defaults.maxMemory,
      maxInstructions: options.maxInstructions ?? this.#defaults.maxInstructions,
    };
  }

  #cString(s: string): Pointer {
    const bytes = new TextEncoder().encode(`${s}\0`);
    const p = this.#m.malloc(bytes.length);
    this.#m.heap().set(bytes, p);
    return p;
  }

  #allocate(ptr: Pointer, oldSize: number, newSize: number): Pointer {
    const m = this.#m;
    if (newSize === 0) {
      if (ptr !== 0) {
        this.#used -= oldSize;
        m.free(ptr);
      }
      return 0;
    }
    // For a new block oldSize is a type tag, not a size.
    const delta = ptr !== 0 ? newSize - oldSize : newSize;
    if (this.#ceiling > 0 && delta > 0 && this.#used + delta > this.#ceiling) {
      return 0;
    }
    const out = m.realloc(ptr, newSize);
    if (out !== 0) this.#used += delta;
    return out;
  }

  #onHook(L: LuaState): void {
    if (this.#expired === undefined) {
      this.#stepsLeft -= 1;
      if (this.#stepsLeft >= 0 && this.#now() <= this.#deadline) return;
      this.#expired = this.#stepsLeft < 0 ? "instructions" : "budget";
      // From now on stop at every instruction, so a script catching the error with pcall
      // is stopped again as soon as it continues.
      this.#m.lua_sethook(L, this.#hook, LUA_MASKCOUNT, 1);
    }
    this.#m.lua_pushlstring(L, this.#budgetMessage, BUDGET_MESSAGE.length);
    this.#m.lua_error(L);
  }

  /** Calls the function below `nargs` arguments on the stack, within the limits. */
  #protectedCall(nargs: number, limits: Required<LuaLimits>): void {
    const m = this.#m;
    const L = this.#L;
    this.#expired = undefined;
    this.#deadline = this.#now() + limits.budgetMs;
    this.#stepsLeft = Math.floor(limits.maxInstructions / HOOK_INSTRUCTIONS);
    this.#ceiling = this.#used + limits.maxMemory;
    m.lua_sethook(L, this.#hook, LUA_MASKCOUNT, HOOK_INSTRUCTIONS);
    let rc: number;
    try {
      rc = m.lua_pcallk(L, nargs, LUA_MULTRET, 0, 0, 0);
    } finally {
      m.lua_sethook(L, 0, 0, 0);
      this.#ceiling = 0;
    }
    if (rc === LUA_OK) return;
    const expired = this.#expired;
    const message = this.#errorMessage(-1);
    this.#collectGarbage();
    if (expired === "budget")
      throw new LuaError("budget", `Lua script exceeded its time budget of ${limits.budgetMs} ms`);
    if (expired === "instructions") {
      throw new LuaError(
        "instructions",
        `Lua script exceeded its bound of ${limits.maxInstructions} instructions`,
      );
    }
    if (rc === LUA_ERRMEM) {
      throw new LuaError("memory", `Lua script exceeded its memory limit of ${limits.maxMemory} bytes`);
    }
    throw new LuaError("runtime", message);
  }

  #compile(script: string, limits: Required<LuaLimits>): number {
    const cached = this.#chunks.get(script);
    if (cached !== undefined) {
      this.#chunks.delete(script);
      this.#chunks.set(script, cached);
      return cached;
    }
    const m = this.#m;
    const L = this.#L;
    // Tables the script builds keep insertion order (ordered-tables.ts); should the rewrite
    // not compile, the script runs as written.
    const ordered = orderTableConstructors(script);
    let rc = ordered === undefined ? -1 : this.#load(ordered, limits);
    if (rc !== LUA_OK) {
      if (rc > 0) m.lua_settop(L, -2);
      rc = this.#load(script, limits);
    }
    if (rc !== LUA_OK) {
      const message = rc === LUA_ERRMEM ? "not enough memory to compile the script" : this.#errorMessage(-1);
      m.lua_settop(L, -2);
      throw new LuaError("compile", message);
    }
    const ref = m.luaL_ref(L, LUA_REGISTRYINDEX);
    this.#chunks.set(script, ref);
    if (this.#chunks.size > this.#cacheSize) {
      const [oldest, oldRef] = this.#chunks.entries().next().value as [string, number];
      this.#chunks.delete(oldest);
      m.luaL_unref(L, LUA_REGISTRYINDEX, oldRef);
    }
    return ref;
  }

  /** Compiles `source` (text only: a binary chunk could break the VM) onto the stack. */
  #load(source: string, limits: Required<LuaLimits>): number {
    const { ptr, len } = this.#values.encode(source);
    this.#ceiling = this.#used + limits.maxMemory;
    try {
      return this.#m.luaL_loadbufferx(this.#L, ptr, len, this.#chunkName, this.#textMode);
    } finally {
      this.#ceiling = 0;
    }
  }

  #errorMessage(idx: number): string {
    const type = this.#m.lua_type(this.#L, idx);
    if (type === LuaType.string) return this.#values.readString(this.#L, idx);
    if (type === LuaType.number) return formatLuaNumber(this.#m.lua_tonumberx(this.#L, idx, 0));
    return `(error object is a ${type === LuaType.nil ? "nil" : "non-string"} value)`;
  }

  #readResult(idx: number): Json {
    try {
      return this.#values.read(this.#L, idx);
    } catch (e) {
      if (e instanceof LuaConversionError) throw new LuaError("result", e.message);
      throw e;
    }
  }

  #collectGarbage(): void {
    const m = this.#m;
    const L = this.#L;
    const top = m.lua_gettop(L);
    m.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(this.#collectRef));
    m.lua_pcallk(L, 0, 0, 0, 0, 0);
    m.lua_settop(L, top);
  }

  #runPrelude(): void {
    const m = this.#m;
    const L = this.#L;
    const { ptr, len } = this.#values.encode(SANDBOX_PRELUDE);
    if (m.luaL_loadbufferx(L, ptr, len, this.#chunkName, this.#textMode) !== LUA_OK) {
      throw new Error(`Lua sandbox prelude: ${this.#errorMessage(-1)}`);
    }
    m.lua_createtable(L, 0, 5);
    this.#setNative("gofloat", (L) => {
      this.#values.pushString(L, formatLuaNumber(m.lua_tonumberx(L, 1, 0)));
      return 1;
    });
    const helpers: Record<string, NativeHelper> = {
      resourceAdd: kube.resourceAdd,
      accuratePodRequirements: kube.accuratePodRequirements,
      getPodDependencies: kube.getPodDependencies,
      getResourceQuantity: kube.getResourceQuantity,
    };
    for (const [name, helper] of Object.entries(helpers)) {
      this.#setNative(name, (L) => this.#callHelper(L, helper));
    }
    if (m.lua_pcallk(L, 1, 3, 0, 0, 0) !== LUA_OK) {
      throw new Error(`Lua sandbox prelude: ${this.#errorMessage(-1)}`);
    }
    this.#collectRef = m.luaL_ref(L, LUA_REGISTRYINDEX);
    this.#probeRef = m.luaL_ref(L, LUA_REGISTRYINDEX);
    this.#invokeRef = m.luaL_ref(L, LUA_REGISTRYINDEX);
  }

  /** Sets `name` in the table on top of the stack to a C function implemented by `fn`. */
  #setNative(name: string, fn: (L: LuaState) => number): void {
    const m = this.#m;
    const ptr = m.addFunction(fn, "ii");
    this.#functions.push(ptr);
    this.#values.pushString(this.#L, name);
    m.lua_pushcclosure(this.#L, ptr, 0);
    m.lua_rawset(this.#L, -3);
  }

  /**
   * A kube helper as a C function: returns `true, result` or `false, message`; the Lua
   * wrapper raises the message. No JS exception may leave here (it would skip Lua's own
   * unwinding), except Lua's longjmp when pushing the result runs out of memory.
   */
  #callHelper(L: LuaState, helper: NativeHelper): number {
    const m = this.#m;
    const values = this.#values;
    const n = m.lua_gettop(L);
    let result: unknown;
    let failure: string | undefined;
    try {
      const args = [];
      for (let i = 1; i <= n; i++) args.push(values.readArgument(L, i));
      result = helper(args);
    } catch (e) {
      if (isLuaUnwind(e)) throw e;
      failure = (e as Error).message;
    }
    if (failure === undefined) {
      try {
        m.lua_pushboolean(L, 1);
        values.push(L, result);
        return 2;
      } catch (e) {
        if (isLuaUnwind(e)) throw e;
        m.lua_settop(L, n);
        failure = (e as Error).message;
      }
    }
    m.lua_pushboolean(L, 0);
    values.pushString(L, failure);
    return 2;
  }
}

function functionError(functionName: string, status: string): LuaError {
  if (status === "missing") return new LuaError("function", `not found function ${functionName}`);
  return new LuaError("function", `${functionName} is not a function: ${status}`);
}
