/**
 * The Lua 5.4 C API as the wasmoon package compiles it to WebAssembly. We use wasmoon only
 * for its build of Lua and call the exported C functions directly: its own JS bridge converts
 * values through proxies and type extensions we do not want (and cannot bound), while the raw
 * API lets us own the allocator (memory limit), the hook (time budget) and the conversion.
 *
 * wasmoon's build wraps every export in an assertion shim that costs about as much as the
 * call itself. We take the instance's exports as emscripten instantiates them (by watching
 * `WebAssembly.instantiate` while the module loads) and fall back to the shims if that ever
 * stops working. Pointers are offsets into the instance's memory; `heap()` returns a view
 * that is replaced when the memory grows, so it is fetched again after anything that may
 * allocate.
 */
import { LuaFactory } from "wasmoon";

/** `lua_State*`. */
export type LuaState = number;
/** A pointer into the module's memory. */
export type Pointer = number;

/** The Lua C functions we call, plus the module's allocator and function table. */
export interface LuaModule {
  /** The module's memory as bytes (fetch again after calls that may allocate). */
  heap(): Uint8Array;
  /** Adds a JS function to the module's function table with a wasm signature (`"ii"`...). */
  // biome-ignore lint/suspicious/noExplicitAny: emscripten's addFunction takes any JS function matching the signature.
  addFunction(fn: (...args: any[]) => any, signature: string): Pointer;
  removeFunction(fn: Pointer): void;
  malloc(size: number): Pointer;
  free(ptr: Pointer): void;
  realloc(ptr: Pointer, size: number): Pointer;

  lua_newstate(alloc: Pointer, ud: Pointer): LuaState;
  lua_close(L: LuaState): void;
  luaL_openlibs(L: LuaState): void;
  lua_gettop(L: LuaState): number;
  lua_settop(L: LuaState, idx: number): void;
  lua_checkstack(L: LuaState, n: number): number;
  lua_pushnil(L: LuaState): void;
  lua_pushboolean(L: LuaState, b: number): void;
  lua_pushnumber(L: LuaState, n: number): void;
  lua_pushinteger(L: LuaState, n: bigint): void;
  lua_pushlstring(L: LuaState, s: Pointer, len: number): Pointer;
  lua_pushcclosure(L: LuaState, fn: Pointer, n: number): void;
  lua_createtable(L: LuaState, narr: number, nrec: number): void;
  lua_rawset(L: LuaState, idx: number): void;
  lua_rawseti(L: LuaState, idx: number, n: bigint): void;
  lua_rawgeti(L: LuaState, idx: number, n: bigint): number;
  lua_type(L: LuaState, idx: number): number;
  lua_toboolean(L: LuaState, idx: number): number;
  lua_tonumberx(L: LuaState, idx: number, isnum: Pointer): number;
  lua_isinteger(L: LuaState, idx: number): number;
  lua_tolstring(L: LuaState, idx: number, len: Pointer): Pointer;
  lua_topointer(L: LuaState, idx: number): Pointer;
  lua_next(L: LuaState, idx: number): number;
  lua_pcallk(L: LuaState, nargs: number, nresults: number, msgh: number, ctx: number, k: Pointer): number;
  lua_error(L: LuaState): number;
  lua_sethook(L: LuaState, fn: Pointer, mask: number, count: number): void;
  luaL_loadbufferx(L: LuaState, buf: Pointer, size: number, name: Pointer, mode: Pointer): number;
  luaL_ref(L: LuaState, t: number): number;
  luaL_unref(L: LuaState, t: number, ref: number): void;
}

const LUA_FUNCTIONS = [
  "lua_newstate",
  "lua_close",
  "luaL_openlibs",
  "lua_gettop",
  "lua_settop",
  "lua_checkstack",
  "lua_pushnil",
  "lua_pushboolean",
  "lua_pushnumber",
  "lua_pushinteger",
  "lua_pushlstring",
  "lua_pushcclosure",
  "lua_createtable",
  "lua_rawset",
  "lua_rawseti",
  "lua_rawgeti",
  "lua_type",
  "lua_toboolean",
  "lua_tonumberx",
  "lua_isinteger",
  "lua_tolstring",
  "lua_topointer",
  "lua_next",
  "lua_pcallk",
  "lua_error",
  "lua_sethook",
  "luaL_loadbufferx",
  "luaL_ref",
  "luaL_unref",
  "malloc",
  "free",
  "realloc",
] as const;

// lua.h constants for Lua 5.4 as built by wasmoon (LUAI_MAXSTACK = 1000000).
export const LUA_REGISTRYINDEX = -1_000_000 - 1000;
export const LUA_MULTRET = -1;
export const LUA_OK = 0;
export const LUA_ERRRUN = 2;
export const LUA_ERRSYNTAX = 3;
export const LUA_ERRMEM = 4;
export const LUA_MASKCOUNT = 8;

export const LuaType = {
  none: -1,
  nil: 0,
  boolean: 1,
  lightuserdata: 2,
  number: 3,
  string: 4,
  table: 5,
  function: 6,
  userdata: 7,
  thread: 8,
} as const;

const TYPE_NAMES = [
  "nil",
  "boolean",
  "userdata",
  "number",
  "string",
  "table",
  "function",
  "userdata",
  "thread",
];

export function luaTypeName(type: number): string {
  return TYPE_NAMES[type] ?? "no value";
}

/** What wasmoon's emscripten module offers besides the shimmed exports. */
interface EmscriptenModule {
  HEAPU8: Uint8Array;
  // biome-ignore lint/suspicious/noExplicitAny: see LuaModule.addFunction.
  addFunction(fn: (...args: any[]) => any, signature: string): Pointer;
  removeFunction(fn: Pointer): void;
  [name: string]: unknown;
}

// The WebAssembly global, typed here: our TypeScript lib settings do not declare it.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
type WasmExports = Record<string, unknown>;
type Instantiate = (...args: unknown[]) => Promise<unknown>;
interface WasmGlobal {
  instantiate: Instantiate;
  Memory: abstract new (...args: never[]) => WasmMemory;
}
const wasmGlobal = (globalThis as unknown as { WebAssembly: WasmGlobal }).WebAssembly;

/** Engines are created one at a time, so each sees only its own instantiation. */
let loading: Promise<unknown> = Promise.resolve();

/** A fresh instance of the Lua module: its own memory, nothing shared with other engines. */
export function loadLuaModule(): Promise<LuaModule> {
  const next = loading.then(load);
  loading = next.catch(() => undefined);
  return next;
}

async function load(): Promise<LuaModule> {
  const original = wasmGlobal.instantiate;
  let exports: WasmExports | undefined;
  wasmGlobal.instantiate = async (...args: unknown[]) => {
    const result = await original.apply(wasmGlobal, args);
    const imports = args[1] as { env?: Record<string, unknown> } | undefined;
    if (exports === undefined && imports?.env?.invoke_vii !== undefined) exports = instanceExports(result);
    return result;
  };
  let module: EmscriptenModule;
  try {
    module = (await new LuaFactory().getLuaModule()).module as unknown as EmscriptenModule;
  } finally {
    wasmGlobal.instantiate = original;
  }
  return exports !== undefined && hasAll(exports) ? fromExports(module, exports) : fromShims(module);
}

function instanceExports(result: unknown): WasmExports | undefined {
  const instance = (result as { instance?: { exports?: WasmExports } } | null)?.instance;
  return instance?.exports;
}

function hasAll(exports: WasmExports): boolean {
  return (
    exports.memory instanceof wasmGlobal.Memory &&
    LUA_FUNCTIONS.every((f) => typeof exports[f] === "function")
  );
}

function fromExports(module: EmscriptenModule, exports: WasmExports): LuaModule {
  const memory = exports.memory as WasmMemory;
  let view = new Uint8Array(memory.buffer);
  const heap = () => {
    if (view.buffer !== memory.buffer) view = new Uint8Array(memory.buffer);
    return view;
  };
  const out: Record<string, unknown> = {
    heap,
    addFunction: module.addFunction.bind(module),
    removeFunction: module.removeFunction.bind(module),
  };
  for (const f of LUA_FUNCTIONS) out[f] = exports[f];
  return out as unknown as LuaModule;
}

function fromShims(module: EmscriptenModule): LuaModule {
  const out: Record<string, unknown> = {
    heap: () => module.HEAPU8,
    addFunction: module.addFunction.bind(module),
    removeFunction: module.removeFunction.bind(module),
  };
  for (const f of LUA_FUNCTIONS) out[f] = module[`_${f}`];
  return out as unknown as LuaModule;
}
