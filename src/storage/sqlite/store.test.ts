import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { runStoreConformance } from "../conformance.ts";
import { CompactedError, KeyExistsError, type WatchEvent } from "../store.ts";
import { CREATE_SCHEMA, SQL } from "./schema.ts";
import { SqliteStore } from "./store.ts";

const projectRoot = fileURLToPath(new URL("../../..", import.meta.url));
const writeLoop = fileURLToPath(new URL("./testdata/write-loop.ts", import.meta.url));

async function until(cond: () => boolean, what: string, tries = 500): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Opens the file directly (the store must be closed) to look at what is on disk. */
function inspect<T>(path: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

function rowCount(path: string): number {
  return inspect(path, (db) => db.prepare<[], number>("SELECT COUNT(*) FROM kv_log").pluck().get() ?? 0);
}

const conformanceDir = mkdtempSync(join(tmpdir(), "karmada-sqlite-"));
afterAll(() => rmSync(conformanceDir, { recursive: true, force: true }));
let conformanceFiles = 0;
runStoreConformance("sqlite", async () => new SqliteStore(join(conformanceDir, `${conformanceFiles++}.db`)));

describe("SqliteStore", () => {
  let dir: string;
  let path: string;
  const stores: SqliteStore[] = [];
  const children: ChildProcess[] = [];
  function open(options: ConstructorParameters<typeof SqliteStore>[1] = {}): SqliteStore {
    const s = new SqliteStore(path, options);
    stores.push(s);
    return s;
  }
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "karmada-sqlite-"));
    path = join(dir, "state.db");
  });
  afterEach(async () => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    for (const s of stores.splice(0)) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("commits concurrent writes together, in call order, failing only the ones that must fail", async () => {
    const s = open();
    const events: WatchEvent[] = [];
    const start = await s.currentRevision();
    const w = s.watch("/g/", start, { onEvents: (evs) => events.push(...evs), onError: () => {} });
    await s.create("/g/existing", "x");
    const writes = Array.from({ length: 40 }, (_, i) =>
      s.create(i === 20 ? "/g/existing" : `/g/k${i}`, String(i)),
    );
    const results = await Promise.allSettled(writes);
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(1);
    expect((results[20] as PromiseRejectedResult).reason).toBeInstanceOf(KeyExistsError);
    const revisions = results.flatMap((r) => (r.status === "fulfilled" ? [r.value.modRevision] : []));
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    expect(new Set(revisions).size).toBe(39);
    expect(await s.currentRevision()).toBe(revisions.at(-1));
    await until(() => events.length === 40, "every committed write's event");
    w.close();
    expect(events.map((e) => e.kv.modRevision)).toEqual([start + 1, ...revisions]);
  });

  it("reopens with the same state, revision and history", async () => {
    const s = open();
    const a = await s.create("/r/a", "1");
    const a2 = await s.update("/r/a", "2", a.modRevision);
    await s.create("/r/b", "3");
    const b = await s.delete("/r/b");
    await s.close();

    const again = open();
    expect(await again.currentRevision()).toBe(b.modRevision);
    expect(await again.compactedRevision()).toBe(1);
    expect((await again.list("/r/")).kvs).toEqual([a2]);
    expect((await again.get("/r/a", { revision: a.modRevision })).kv?.value).toBe("1");
    const events: WatchEvent[] = [];
    const w = again.watch("/r/", a.modRevision, { onEvents: (e) => events.push(...e), onError: () => {} });
    const c = await again.create("/r/c", "4");
    expect(c.modRevision).toBe(b.modRevision + 1);
    await until(() => events.length === 4, "history and the new event");
    w.close();
    expect(events.map((e) => `${e.type} ${e.kv.key} ${e.kv.modRevision} ${e.prevKv?.value ?? "-"}`)).toEqual([
      `put /r/a ${a2.modRevision} 1`,
      `put /r/b ${a2.modRevision + 1} -`,
      `delete /r/b ${b.modRevision} 3`,
      `put /r/c ${c.modRevision} -`,
    ]);
  });

  it("loses nothing acknowledged when the writing process is killed", async () => {
    const logPath = join(dir, "writes.log");
    const child = spawn(process.execPath, ["--import", "tsx", writeLoop, path, logPath], {
      cwd: projectRoot,
      stdio: ["ignore", "ignore", "pipe"],
    });
    children.push(child);
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const lines = (): string[] => (existsSync(logPath) ? readFileSync(logPath, "utf8").split("\n") : []);
    await until(() => lines().length > 1000 || child.exitCode !== null, "the writer to get going", 3000);
    child.kill("SIGKILL");
    await exited;
    expect(child.signalCode, `writer ended on its own: ${stderr}`).toBe("SIGKILL");

    // Each write is announced ({op, key}) and then acknowledged ({op, key, revision}).
    const acked: { op: string; key: string; revision: number }[] = [];
    let inFlight: { op: string; key: string } | undefined;
    for (const line of lines()) {
      if (!line.endsWith("}")) continue;
      const msg = JSON.parse(line) as { op: string; key: string; revision?: number };
      if (msg.revision === undefined) {
        inFlight = msg;
      } else {
        acked.push({ op: msg.op, key: msg.key, revision: msg.revision });
        inFlight = undefined;
      }
    }
    expect(acked.length).toBeGreaterThan(400);

    const s = open();
    const lastAcked = acked[acked.length - 1]!.revision;
    const revision = await s.currentRevision();
    // At most the one write in flight may have committed unacknowledged.
    expect([lastAcked, lastAcked + 1]).toContain(revision);
    const last = new Map<string, { op: string; revision: number }>();
    for (const a of acked) last.set(a.key, a);
    for (const [key, a] of last) {
      const { kv } = await s.get(key);
      // The write in flight at the kill may or may not have committed; all others must be there.
      if (key === inFlight?.key && revision > lastAcked) continue;
      const why = `${key} ${JSON.stringify({ last: acked.slice(-3), inFlight, revision })}`;
      if (a.op === "delete") expect(kv, why).toBeUndefined();
      else expect(kv?.modRevision, why).toBe(a.revision);
    }
    // The file takes new writes and stays consistent.
    await s.create("/after/crash", "ok");
    await s.close();
    expect(inspect(path, (db) => db.pragma("integrity_check", { simple: true }))).toBe("ok");
  });

  it("refuses a second open of a file that is in use", () => {
    open();
    expect(() => new SqliteStore(path, { busyTimeoutMs: 10 })).toThrow(
      /is locked: another process has it open/,
    );
  });

  it("compaction prunes superseded rows and tombstones, keeps what is readable, truncates the WAL", async () => {
    const s = open({ compactBatchSize: 2 });
    const a = await s.create("/k/a", "a1");
    const a2 = await s.update("/k/a", "a2", a.modRevision);
    const a3 = await s.update("/k/a", "a3", a2.modRevision);
    await s.create("/k/b", "b1");
    const bGone = await s.delete("/k/b");
    const c = await s.create("/k/c", "c1");
    const c2 = await s.update("/k/c", "c2", c.modRevision);
    await s.compact(bGone.modRevision);

    expect(await s.compactedRevision()).toBe(bGone.modRevision);
    expect(s.stats().walBytes).toBe(0);
    await expect(s.get("/k/a", { revision: a3.modRevision - 1 })).rejects.toBeInstanceOf(CompactedError);
    const atCompaction = await s.list("/k/", { revision: bGone.modRevision });
    expect(atCompaction.kvs).toEqual([a3]);
    expect((await s.list("/k/")).kvs).toEqual([a3, c2]);
    const events: WatchEvent[] = [];
    const w = s.watch("/k/", bGone.modRevision, { onEvents: (e) => events.push(...e), onError: () => {} });
    await until(() => events.length === 2, "events after the compacted revision");
    w.close();
    expect(events[1]!.prevKv).toEqual(c);
    // The key whose history was pruned entirely can be created again.
    const b = await s.create("/k/b", "b2");
    expect(b.createRevision).toBe(c2.modRevision + 1);
    await s.close();

    // a3 (a's current row), c and c2 (c2 is above the target, so c is not superseded yet), b again.
    expect(
      inspect(path, (db) => db.prepare<[], number>("SELECT id FROM kv_log ORDER BY id").pluck().all()),
    ).toEqual([a3.modRevision, c.modRevision, c2.modRevision, b.modRevision]);
  });

  it("keeps the revision when compaction prunes the newest row", async () => {
    const s = open();
    await s.create("/k/a", "1");
    const gone = await s.delete("/k/a");
    await s.compact(gone.modRevision);
    await s.close();
    expect(rowCount(path)).toBe(0);
    const again = open();
    expect(await again.currentRevision()).toBe(gone.modRevision);
    expect((await again.create("/k/a", "2")).modRevision).toBe(gone.modRevision + 1);
  });

  it("finishes an interrupted compaction the next time", async () => {
    const s = open({ compactBatchSize: 1 });
    let kv = await s.create("/i/a", "0");
    for (let i = 1; i < 100; i++) kv = await s.update("/i/a", String(i), kv.modRevision);
    const compacting = s.compact(kv.modRevision);
    await new Promise((r) => setImmediate(r));
    await s.close();
    await compacting;
    const left = rowCount(path);
    expect(left).toBeGreaterThan(1);

    const again = open();
    expect(await again.compactedRevision()).toBe(kv.modRevision);
    expect((await again.get("/i/a")).kv).toEqual(kv);
    await again.compact(kv.modRevision);
    await again.close();
    expect(rowCount(path)).toBe(1);
  });

  it("answers reads with index searches, never a full table scan", () => {
    const db = new Database(":memory:");
    try {
      db.exec(CREATE_SCHEMA);
      const args: Record<string, unknown[]> = {
        head: ["/a"],
        headAt: ["/a", 5],
        list: ["/a/", "/a0", 5, 10],
        count: ["/a/", "/a0", 5],
        history: [5, "/a/", "/a0"],
        pruneSuperseded: [1, 5],
        pruneTombstones: [1, 5],
      };
      for (const [name, params] of Object.entries(args)) {
        const sql = SQL[name as keyof typeof SQL];
        const plan = db
          .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...params)
          .map((r) => r.detail);
        // "SCAN m" walks the grouped subquery's own output, not the table.
        const scans = plan.filter((d) => d.startsWith("SCAN ") && d !== "SCAN m");
        expect(scans, `${name}: ${plan.join("; ")}`).toEqual([]);
        expect(
          plan.some((d) => d.startsWith("SEARCH kv_log")),
          `${name}: ${plan.join("; ")}`,
        ).toBe(true);
      }
    } finally {
      db.close();
    }
  });

  it("orders keys as UTF-8 bytes and ranges prefixes by code point", async () => {
    const s = open();
    const keys = ["/u/\u{1F600}", "/u/b", "/u/\uFFFD", "/u/a", "/u/é", "/u/a\u0000z", "/v/x", "/t"];
    for (const k of keys) await s.create(k, k);
    const under = (await s.list("/u/")).kvs.map((kv) => kv.key);
    expect(under).toEqual(["/u/a", "/u/a\u0000z", "/u/b", "/u/é", "/u/\uFFFD", "/u/\u{1F600}"]);
    expect((await s.list("/u/\u{1F600}")).kvs.map((kv) => kv.key)).toEqual(["/u/\u{1F600}"]);
    expect((await s.list("/u/a")).kvs.map((kv) => kv.key)).toEqual(["/u/a", "/u/a\u0000z"]);
    expect((await s.list("")).kvs).toHaveLength(keys.length);
    expect(await s.count("")).toBe(keys.length);
    const page = await s.list("", { limit: 2 });
    expect(page.kvs.map((kv) => kv.key)).toEqual(["/t", "/u/a"]);
    expect(page.remaining).toBe(keys.length - 2);
  });

  it("sends progress notices to idle watchers, never ahead of their events", async () => {
    const s = open();
    const log: string[] = [];
    const handlers = (name: string) => ({
      onEvents: (evs: WatchEvent[]) => {
        for (const e of evs) log.push(`${name} event ${e.kv.modRevision}`);
      },
      onError: (err: Error) => log.push(`${name} error ${err.message}`),
      onProgress: (rev: number) => log.push(`${name} progress ${rev}`),
    });
    const start = await s.currentRevision();
    const busy = s.watch("/busy/", start, handlers("busy"));
    const idle = s.watch("/idle/", start, handlers("idle"));
    const a = await s.create("/busy/a", "1");
    s.notifyProgress();
    await until(() => log.length === 2, "an event and a progress notice");
    busy.close();
    idle.close();
    expect(log.sort()).toEqual([`busy event ${a.modRevision}`, `idle progress ${a.modRevision}`]);
  });
});
