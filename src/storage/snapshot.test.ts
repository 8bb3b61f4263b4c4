/**
 * Snapshots between every pair of backends (etcd when Debian's etcd is installed): what is
 * restored is exactly what the source held at the snapshot's revision, even while the source
 * keeps changing; a damaged snapshot or a non-empty target writes nothing.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ETCD_BINARY, type LocalEtcd, startLocalEtcd } from "./etcd/local-etcd.ts";
import { openStore } from "./open.ts";
import { restoreSnapshot, SnapshotError, saveSnapshot } from "./snapshot.ts";
import type { Store } from "./store.ts";

const haveEtcd = existsSync(ETCD_BINARY);
let dir: string;
let etcd: LocalEtcd | undefined;
let n = 0;

/** A fresh, empty store of a backend. */
async function fresh(backend: string): Promise<Store> {
  n++;
  if (backend === "memory") return openStore("memory:");
  if (backend === "sqlite") return openStore(`sqlite://${join(dir, `s${n}.db`)}`);
  return openStore(`etcd://${etcd!.endpoint}?prefix=/snap${n}`);
}

async function contents(store: Store): Promise<Array<[string, string]>> {
  return (await store.list("/")).kvs.map((kv) => [kv.key, kv.value]);
}

async function populate(store: Store, keys: number): Promise<void> {
  for (let i = 0; i < keys; i++)
    await store.create(`/registry/configmaps/ns${i % 3}/cm-${i}`, JSON.stringify({ i }));
  const first = await store.get("/registry/configmaps/ns0/cm-0");
  await store.update(first.kv!.key, JSON.stringify({ i: 0, updated: true }), first.kv!.modRevision);
  await store.delete("/registry/configmaps/ns1/cm-1");
}

const backends = ["memory", "sqlite", ...(haveEtcd ? ["etcd"] : [])];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "karmada-snapshot-"));
  if (haveEtcd) etcd = await startLocalEtcd();
}, 60_000);

afterAll(async () => {
  await etcd?.destroy();
  await rm(dir, { recursive: true, force: true });
});

describe("snapshot round trips", () => {
  const pairs = backends.flatMap((from) => backends.map((to) => [from, to] as const));
  it.each(pairs)("%s to %s", async (from, to) => {
    const source = await fresh(from);
    const target = await fresh(to);
    try {
      await populate(source, 25);
      const file = join(dir, `${from}-${to}.snapshot`);
      const saved = await saveSnapshot(source, file);
      expect(saved.keys).toBe(24);
      const restored = await restoreSnapshot(target, file);
      expect(restored).toMatchObject({ keys: 24, revision: saved.revision });
      expect(await contents(target)).toEqual(await contents(source));
    } finally {
      await source.close();
      await target.close();
    }
  });
});

describe("a snapshot", () => {
  it("holds the source as it was at one revision while writes go on", async () => {
    const source = await fresh("sqlite");
    try {
      await populate(source, 2500);
      let writing = true;
      let i = 0;
      const writer = (async () => {
        while (writing) await source.create(`/registry/configmaps/late/cm-${i++}`, "{}");
      })();
      const file = join(dir, "consistent.snapshot");
      const saved = await saveSnapshot(source, file);
      writing = false;
      await writer;
      const atRevision = (await source.list("/", { revision: saved.revision })).kvs;
      expect(saved.keys).toBe(atRevision.length);
      const lines = (await readFile(file, "utf8")).trim().split("\n");
      expect(lines.slice(1, -1).map((l) => (JSON.parse(l) as [string])[0])).toEqual(
        atRevision.map((kv) => kv.key),
      );
    } finally {
      await source.close();
    }
  });

  it("is not restored into a store that holds anything", async () => {
    const source = await fresh("memory");
    const target = await fresh("memory");
    await populate(source, 3);
    await target.create("/registry/namespaces/default", "{}");
    const file = join(dir, "nonempty.snapshot");
    await saveSnapshot(source, file);
    await expect(restoreSnapshot(target, file)).rejects.toThrow(
      "the target store is not empty (1 keys): restore only into an empty store",
    );
    expect(await contents(target)).toEqual([["/registry/namespaces/default", "{}"]]);
  });

  it.each([
    [
      "cut off",
      (text: string) => text.split("\n").slice(0, 3).join("\n"),
      "cut off (no end line after 2 keys)",
    ],
    ["not a snapshot", () => "hello\n", "not JSON"],
    ["another format", () => '{"format":"x"}\n', "not a snapshot written by karmada snapshot save"],
    [
      "a newer version",
      (text: string) => text.replace('"version":1', '"version":9'),
      "snapshot format version 9",
    ],
  ])("%s writes nothing", async (_what, damage, message) => {
    const source = await fresh("memory");
    const target = await fresh("memory");
    await populate(source, 4);
    const file = join(dir, "damaged.snapshot");
    await saveSnapshot(source, file);
    await writeFile(file, damage(await readFile(file, "utf8")));
    const err = await restoreSnapshot(target, file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SnapshotError);
    expect((err as Error).message).toContain(message);
    expect(await contents(target)).toEqual([]);
  });
});
