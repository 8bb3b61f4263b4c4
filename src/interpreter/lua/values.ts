/**
 * Values between JSON and the Lua stack, with the rules upstream's engine applies
 * (gopher-lua plus layeh.com/gopher-json, see `luavm/lua.go` and `lua_convert.go`):
 *
 * - Into Lua: `null` object members are left out and `null` array elements dropped (a Lua
 *   table cannot hold nil); integral numbers become Lua integers, so scripts print `3`, not
 *   `3.0` (gopher-lua has only doubles and prints integral ones without a fraction).
 * - Out of Lua: a table with no keys is `[]` (an empty object and an empty array cannot be
 *   told apart; the caller repairs that with `restoreEmptyTables`), keys 1..n make an array,
 *   string keys an object; mixed or sparse keys, functions, NaN and a table reached twice are
 *   errors, as upstream's encoder reports them.
 */
import {
  LUA_REGISTRYINDEX,
  type LuaModule,
  type LuaState,
  LuaType,
  luaTypeName,
  type Pointer,
} from "./wasm.ts";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A Lua value JSON has no form for (a function, a coroutine), as a native helper's argument. */
export class OpaqueLuaValue {
  readonly luaType: string;
  constructor(luaType: string) {
    this.luaType = luaType;
  }
}

export class LuaConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LuaConversionError";
  }
}

/** Deeper results are refused rather than risking the JS stack. */
const MAX_DEPTH = 512;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Moves values between JSON and one module's Lua stacks; owns two scratch buffers in its memory. */
export class LuaValues {
  readonly #m: LuaModule;
  readonly #lenPtr: Pointer;
  #buf: Pointer;
  #bufSize: number;

  constructor(m: LuaModule) {
    this.#m = m;
    this.#lenPtr = m.malloc(8);
    this.#bufSize = 4096;
    this.#buf = m.malloc(this.#bufSize);
  }

  dispose(): void {
    this.#m.free(this.#lenPtr);
    this.#m.free(this.#buf);
  }

  /** Copies `s` as UTF-8 into the scratch buffer; returns its length. The buffer is valid until the next call. */
  encode(s: string): { ptr: Pointer; len: number } {
    const need = s.length * 3 + 1;
    if (need > this.#bufSize) {
      this.#m.free(this.#buf);
      this.#bufSize = Math.max(need, this.#bufSize * 2);
      this.#buf = this.#m.malloc(this.#bufSize);
      if (this.#buf === 0) throw new Error("out of memory for a Lua string buffer");
    }
    const heap = this.#m.heap();
    const ptr = this.#buf;
    let len: number;
    if (s.length < 64 && isAscii(s)) {
      for (let i = 0; i < s.length; i++) heap[ptr + i] = s.charCodeAt(i);
      len = s.length;
    } else {
      len = encoder.encodeInto(s, heap.subarray(ptr, ptr + this.#bufSize)).written;
    }
    heap[ptr + len] = 0;
    return { ptr, len };
  }

  pushString(L: LuaState, s: string): void {
    const { ptr, len } = this.encode(s);
    this.#m.lua_pushlstring(L, ptr, len);
  }

  /** Pushes a JSON value (anything else is refused). */
  push(L: LuaState, value: unknown, depth = 0): void {
    const m = this.#m;
    if (value === null || value === undefined) m.lua_pushnil(L);
    else if (typeof value === "boolean") m.lua_pushboolean(L, value ? 1 : 0);
    else if (typeof value === "number") {
      if (Number.isSafeInteger(value)) m.lua_pushinteger(L, BigInt(value));
      else m.lua_pushnumber(L, value);
    } else if (typeof value === "string") this.pushString(L, value);
    else if (typeof value === "object") this.#pushTable(L, value, depth);
    else throw new LuaConversionError(`cannot pass a ${typeof value} to Lua`);
  }

  #pushTable(L: LuaState, value: object, depth: number): void {
    const m = this.#m;
    if (depth > MAX_DEPTH) throw new LuaConversionError("value nested too deeply for Lua");
    if (m.lua_checkstack(L, 4) === 0) throw new LuaConversionError("Lua stack overflow");
    if (Array.isArray(value)) {
      m.lua_createtable(L, value.length, 0);
      let n = 0;
      for (const item of value) {
        if (item === null || item === undefined) continue;
        this.push(L, item, depth + 1);
        m.lua_rawseti(L, -2, BigInt(++n));
      }
      return;
    }
    const entries = Object.entries(value);
    m.lua_createtable(L, 0, entries.length);
    for (const [key, item] of entries) {
      if (item === null || item === undefined) continue;
      this.pushString(L, key);
      this.push(L, item, depth + 1);
      m.lua_rawset(L, -3);
    }
  }

  readString(L: LuaState, idx: number): string {
    const m = this.#m;
    const ptr = m.lua_tolstring(L, idx, this.#lenPtr);
    const heap = m.heap();
    const p = this.#lenPtr;
    const len = (heap[p]! | (heap[p + 1]! << 8) | (heap[p + 2]! << 16) | (heap[p + 3]! << 24)) >>> 0;
    if (len < 48) {
      let s = "";
      for (let i = 0; i < len; i++) {
        const c = heap[ptr + i]!;
        if (c >= 0x80) return decoder.decode(heap.subarray(ptr, ptr + len));
        s += String.fromCharCode(c);
      }
      return s;
    }
    return decoder.decode(heap.subarray(ptr, ptr + len));
  }

  /** The value at `idx` as JSON; throws LuaConversionError for what upstream cannot encode. */
  read(L: LuaState, idx: number): Json {
    return this.#read(L, this.#abs(L, idx), new Set(), 0);
  }

  /**
   * As `read`, but a value JSON cannot hold becomes an OpaqueLuaValue instead of an error:
   * native helpers check their arguments' Lua types themselves.
   */
  readArgument(L: LuaState, idx: number): Json | OpaqueLuaValue {
    const type = this.#m.lua_type(L, idx);
    if (type === LuaType.function || type === LuaType.userdata || type === LuaType.thread) {
      return new OpaqueLuaValue(luaTypeName(type));
    }
    return this.read(L, idx);
  }

  #abs(L: LuaState, idx: number): number {
    return idx < 0 && idx > LUA_REGISTRYINDEX ? this.#m.lua_gettop(L) + idx + 1 : idx;
  }

  #read(L: LuaState, idx: number, visited: Set<Pointer>, depth: number): Json {
    const m = this.#m;
    const type = m.lua_type(L, idx);
    switch (type) {
      case LuaType.nil:
        return null;
      case LuaType.boolean:
        return m.lua_toboolean(L, idx) !== 0;
      case LuaType.number: {
        const n = m.lua_tonumberx(L, idx, 0);
        if (!Number.isFinite(n))
          throw new LuaConversionError(`json: unsupported value: ${formatNonFinite(n)}`);
        return n;
      }
      case LuaType.string:
        return this.readString(L, idx);
      case LuaType.table:
        return this.#readTable(L, idx, visited, depth);
      default:
        throw new LuaConversionError(`cannot encode ${luaTypeName(type)} to JSON`);
    }
  }

  #readTable(L: LuaState, idx: number, visited: Set<Pointer>, depth: number): Json {
    const m = this.#m;
    if (depth > MAX_DEPTH) throw new LuaConversionError("table nested too deeply to encode to JSON");
    // Upstream's encoder remembers every table it has seen, so a table used twice (not only
    // a cycle) is refused; scripts that pass upstream never do this.
    const ptr = m.lua_topointer(L, idx);
    if (visited.has(ptr)) throw new LuaConversionError("cannot encode recursively nested tables to JSON");
    visited.add(ptr);
    if (m.lua_checkstack(L, 4) === 0) throw new LuaConversionError("Lua stack overflow");

    const byName: Record<string, Json> = {};
    const names: string[] = [];
    const byIndex = new Map<number, Json>();
    m.lua_pushnil(L);
    while (m.lua_next(L, idx) !== 0) {
      const keyType = m.lua_type(L, -2);
      if (keyType === LuaType.string) {
        const name = this.readString(L, -2);
        names.push(name);
        byName[name] = this.#read(L, m.lua_gettop(L), visited, depth + 1);
      } else if (keyType === LuaType.number && m.lua_isinteger(L, -2) !== 0) {
        byIndex.set(m.lua_tonumberx(L, -2, 0), this.#read(L, m.lua_gettop(L), visited, depth + 1));
      } else {
        m.lua_settop(L, -3);
        throw new LuaConversionError("cannot encode mixed or invalid key types");
      }
      m.lua_settop(L, -2);
    }
    if (names.length > 0 && byIndex.size > 0)
      throw new LuaConversionError("cannot encode mixed or invalid key types");
    if (byIndex.size > 0) {
      const out: Json[] = [];
      for (let i = 1; i <= byIndex.size; i++) {
        if (!byIndex.has(i)) throw new LuaConversionError("cannot encode sparse array");
        out.push(byIndex.get(i)!);
      }
      return out;
    }
    if (names.length === 0) return [];
    // Go's encoder writes map keys sorted; so do we, which also keeps results stable.
    names.sort();
    const out: Record<string, Json> = {};
    for (const name of names) out[name] = byName[name]!;
    return out;
  }
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

function formatNonFinite(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  return n > 0 ? "+Inf" : "-Inf";
}

/** The Lua type name of a value as it reached us (for argument and result checks). */
export function luaTypeOf(value: Json | OpaqueLuaValue | undefined): string {
  if (value === null || value === undefined) return "nil";
  if (value instanceof OpaqueLuaValue) return value.luaType;
  if (typeof value === "object") return "table";
  return typeof value;
}
