/**
 * The one store test suite every backend must pass. Each backend's test file calls
 * `runStoreConformance` with a factory for a fresh, empty store.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  CompactedError,
  KeyExistsError,
  KeyNotFoundError,
  RevisionMismatchError,
  type Store,
  type WatchEvent,
} from "./store.ts";

interface Collected {
  events: WatchEvent[];
  errors: Error[];
  close(): void;
}

function collect(store: Store, prefix: string, after: number): Collected {
  const out: Collected = { events: [], errors: [], close: () => {} };
  const w = store.watch(prefix, after, {
    onEvents: (evs) => out.events.push(...evs),
    onError: (err) => out.errors.push(err),
  });
  out.close = () => w.close();
  return out;
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export function runStoreConformance(name: string, open: () => Promise<Store>): void {
  describe(`store conformance: ${name}`, () => {
    const opened: Store[] = [];
    async function fresh(): Promise<Store> {
      const s = await open();
      opened.push(s);
      return s;
    }
    afterEach(async () => {
      while (opened.length) await opened.pop()!.close();
    });

    it("creates, reads, updates and deletes with increasing revisions", async () => {
      const s = await fresh();
      const r0 = await s.currentRevision();
      const a = await s.create("/t/a", "one");
      expect(a.modRevision).toBeGreaterThan(r0);
      expect(a.createRevision).toBe(a.modRevision);
      expect((await s.get("/t/a")).kv).toEqual(a);
      const b = await s.update("/t/a", "two", a.modRevision);
      expect(b.modRevision).toBeGreaterThan(a.modRevision);
      expect(b.createRevision).toBe(a.createRevision);
      expect(b.value).toBe("two");
      const got = await s.get("/t/a");
      expect(got.kv?.value).toBe("two");
      expect(got.revision).toBeGreaterThanOrEqual(b.modRevision);
      const d = await s.delete("/t/a");
      expect(d.value).toBe("two");
      expect(d.modRevision).toBeGreaterThan(b.modRevision);
      expect((await s.get("/t/a")).kv).toBeUndefined();
      expect(await s.currentRevision()).toBe(d.modRevision);
    });

    it("refuses to create an existing key and to touch a missing one", async () => {
      const s = await fresh();
      await s.create("/t/a", "one");
      await expect(s.create("/t/a", "again")).rejects.toBeInstanceOf(KeyExistsError);
      await expect(s.update("/t/missing", "x", 1)).rejects.toBeInstanceOf(KeyNotFoundError);
      await expect(s.delete("/t/missing")).rejects.toBeInstanceOf(KeyNotFoundError);
      expect((await s.get("/t/a")).kv?.value).toBe("one");
    });

    it("compares revisions on update and delete", async () => {
      const s = await fresh();
      const a = await s.create("/t/a", "one");
      const b = await s.update("/t/a", "two", a.modRevision);
      const stale = s.update("/t/a", "three", a.modRevision);
      await expect(stale).rejects.toBeInstanceOf(RevisionMismatchError);
      await stale.catch((e: RevisionMismatchError) => expect(e.current.modRevision).toBe(b.modRevision));
      await expect(s.delete("/t/a", a.modRevision)).rejects.toBeInstanceOf(RevisionMismatchError);
      expect((await s.get("/t/a")).kv?.value).toBe("two");
      await s.delete("/t/a", b.modRevision);
      expect((await s.get("/t/a")).kv).toBeUndefined();
    });

    it("recreates a deleted key with a new create revision", async () => {
      const s = await fresh();
      const a = await s.create("/t/a", "one");
      await s.delete("/t/a");
      const again = await s.create("/t/a", "two");
      expect(again.createRevision).toBeGreaterThan(a.createRevision);
      expect((await s.get("/t/a")).kv?.value).toBe("two");
    });

    it("lists by prefix in key order with limit, start key and remaining count", async () => {
      const s = await fresh();
      for (const k of ["b", "a", "d", "c", "e"]) await s.create(`/p/${k}`, k);
      await s.create("/pq/x", "other prefix");
      await s.create("/o/x", "before");
      const all = await s.list("/p/");
      expect(all.kvs.map((kv) => kv.value)).toEqual(["a", "b", "c", "d", "e"]);
      expect(all.more).toBe(false);
      expect(await s.count("/p/")).toBe(5);
      const page1 = await s.list("/p/", { limit: 2 });
      expect(page1.kvs.map((kv) => kv.value)).toEqual(["a", "b"]);
      expect(page1.more).toBe(true);
      expect(page1.remaining).toBe(3);
      const page2 = await s.list("/p/", { limit: 2, startKey: "/p/c", revision: page1.revision });
      expect(page2.kvs.map((kv) => kv.value)).toEqual(["c", "d"]);
      expect(page2.remaining).toBe(1);
      const page3 = await s.list("/p/", { limit: 2, startKey: "/p/e", revision: page1.revision });
      expect(page3.kvs.map((kv) => kv.value)).toEqual(["e"]);
      expect(page3.more).toBe(false);
      expect((await s.list("/nothing/")).kvs).toEqual([]);
    });

    it("reads the past at a revision", async () => {
      const s = await fresh();
      const a = await s.create("/t/a", "a1");
      await s.create("/t/b", "b1");
      const at = await s.currentRevision();
      await s.update("/t/a", "a2", a.modRevision);
      await s.delete("/t/b");
      await s.create("/t/c", "c1");
      const past = await s.list("/t/", { revision: at });
      expect(past.kvs.map((kv) => `${kv.key}=${kv.value}`)).toEqual(["/t/a=a1", "/t/b=b1"]);
      expect(past.revision).toBe(at);
      expect((await s.get("/t/a", { revision: at })).kv?.value).toBe("a1");
      expect((await s.get("/t/c", { revision: at })).kv).toBeUndefined();
      const now = await s.list("/t/");
      expect(now.kvs.map((kv) => `${kv.key}=${kv.value}`)).toEqual(["/t/a=a2", "/t/c=c1"]);
    });

    it("pages through a consistent snapshot while writes continue", async () => {
      const s = await fresh();
      for (let i = 0; i < 10; i++) await s.create(`/snap/${String(i).padStart(2, "0")}`, `v${i}`);
      const first = await s.list("/snap/", { limit: 4 });
      await s.delete("/snap/05");
      await s.create("/snap/99", "late");
      const seen = first.kvs.map((kv) => kv.value);
      let next = first;
      while (next.more) {
        const last = next.kvs[next.kvs.length - 1]!.key;
        next = await s.list("/snap/", { limit: 4, startKey: `${last}\u0000`, revision: first.revision });
        seen.push(...next.kvs.map((kv) => kv.value));
      }
      expect(seen).toEqual(["v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"]);
    });

    it("watches live changes under a prefix with previous values", async () => {
      const s = await fresh();
      const start = await s.currentRevision();
      const w = collect(s, "/w/", start);
      const a = await s.create("/w/a", "1");
      await s.create("/other/a", "ignored");
      const a2 = await s.update("/w/a", "2", a.modRevision);
      await s.delete("/w/a");
      await until(() => w.events.length >= 3, "three events");
      w.close();
      expect(w.events.map((e) => e.type)).toEqual(["put", "put", "delete"]);
      expect(w.events[0]!.prevKv).toBeUndefined();
      expect(w.events[1]!.prevKv?.value).toBe("1");
      expect(w.events[1]!.kv.modRevision).toBe(a2.modRevision);
      expect(w.events[2]!.prevKv?.value).toBe("2");
      expect(w.events[2]!.kv.modRevision).toBeGreaterThan(a2.modRevision);
      expect(w.errors).toEqual([]);
    });

    it("replays history from a past revision, then continues live, in order", async () => {
      const s = await fresh();
      const a = await s.create("/h/a", "1");
      await s.update("/h/a", "2", a.modRevision);
      await s.create("/h/b", "3");
      const w = collect(s, "/h/", a.modRevision);
      await s.create("/h/c", "4");
      await until(() => w.events.length >= 3, "history and live events");
      w.close();
      expect(w.events.map((e) => e.kv.value)).toEqual(["2", "3", "4"]);
      const revs = w.events.map((e) => e.kv.modRevision);
      expect([...revs].sort((x, y) => x - y)).toEqual(revs);
    });

    it("delivers each event once to many watchers", async () => {
      const s = await fresh();
      const start = await s.currentRevision();
      const ws = Array.from({ length: 5 }, () => collect(s, "/m/", start));
      for (let i = 0; i < 20; i++) await s.create(`/m/${i}`, String(i));
      await until(() => ws.every((w) => w.events.length >= 20), "all watchers");
      for (const w of ws) {
        w.close();
        expect(w.events.map((e) => e.kv.value)).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
      }
    });

    it("stops delivering after close", async () => {
      const s = await fresh();
      const w = collect(s, "/c/", await s.currentRevision());
      await s.create("/c/a", "1");
      await until(() => w.events.length === 1, "first event");
      w.close();
      await s.create("/c/b", "2");
      await new Promise((r) => setTimeout(r, 100));
      expect(w.events).toHaveLength(1);
    });

    it("compacts history: old revisions expire, current state stays", async () => {
      const s = await fresh();
      const a = await s.create("/k/a", "1");
      const a2 = await s.update("/k/a", "2", a.modRevision);
      await s.create("/k/b", "3");
      const b = await s.delete("/k/b");
      await s.create("/k/c", "4");
      await s.compact(b.modRevision);
      expect(await s.compactedRevision()).toBe(b.modRevision);
      await expect(s.get("/k/a", { revision: a.modRevision })).rejects.toBeInstanceOf(CompactedError);
      await expect(s.list("/k/", { revision: a.modRevision })).rejects.toBeInstanceOf(CompactedError);
      expect((await s.list("/k/")).kvs.map((kv) => kv.value)).toEqual(["2", "4"]);
      expect((await s.get("/k/a", { revision: b.modRevision })).kv?.modRevision).toBe(a2.modRevision);
      const old = collect(s, "/k/", a.modRevision);
      await until(() => old.errors.length === 1, "compaction error");
      expect(old.errors[0]).toBeInstanceOf(CompactedError);
      expect(old.events).toEqual([]);
      const ok = collect(s, "/k/", b.modRevision);
      await until(() => ok.events.length === 1, "event after the compacted revision");
      ok.close();
      expect(ok.events[0]!.kv.value).toBe("4");
    });

    it("keeps values byte for byte", async () => {
      const s = await fresh();
      const value = JSON.stringify({ text: 'héllo \u2603 \n\t"quoted"', n: 1.5, emoji: "🚀" });
      await s.create("/u/a", value);
      expect((await s.get("/u/a")).kv?.value).toBe(value);
      const big = "x".repeat(1_500_000);
      await s.create("/u/big", big);
      expect((await s.get("/u/big")).kv?.value).toBe(big);
    });

    it("serializes concurrent updates of one key: exactly one wins per revision", async () => {
      const s = await fresh();
      const a = await s.create("/race/a", "0");
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => s.update("/race/a", String(i + 1), a.modRevision)),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(results.filter((r) => r.status === "rejected")).toHaveLength(9);
    });
  });
}
