/**
 * `karmada snapshot save|restore` as a user runs them: a control plane's SQLite store saved
 * while it serves, restored into a fresh store (etcd when Debian's etcd is installed), served
 * again with the objects it had; a non-empty target refused in one line.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startControlPlane } from "../../src/bin/control-plane.ts";
import { RESOURCES } from "../../src/client/client.ts";
import { LocalClient } from "../../src/client/local.ts";
import { silentLogger } from "../../src/log.ts";
import { ETCD_BINARY, type LocalEtcd, startLocalEtcd } from "../../src/storage/etcd/local-etcd.ts";

const BIN = fileURLToPath(new URL("../../bin/karmada", import.meta.url));

function karmada(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("karmada snapshot", () => {
  let dir: string;
  let etcd: LocalEtcd | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmada-snapshot-e2e-"));
    if (existsSync(ETCD_BINARY)) etcd = await startLocalEtcd();
  }, 60_000);
  afterAll(async () => {
    await etcd?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it("saves a serving control plane's store and restores it into another backend", {
    timeout: 120_000,
  }, async () => {
    const source = `sqlite://${join(dir, "karmada.db")}`;
    const cp = await startControlPlane({ storage: source, host: "127.0.0.1", port: 0, log: silentLogger });
    try {
      const client = new LocalClient(cp.api.context);
      for (let i = 0; i < 20; i++) {
        await client.create(RESOURCES.configmaps, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { namespace: "default", name: `cm-${i}` },
          data: { i: String(i) },
        });
      }
      // A serving control plane holds its SQLite file alone: the snapshot is taken once it stops.
      const file = join(dir, "karmada.snapshot");
      const locked = await karmada(["snapshot", "save", file, "--storage", source]);
      expect(locked.code).toBe(1);
      expect(locked.stderr).toContain(
        "is locked: another process has it open (one process at a time serves a SQLite store: stop it first)",
      );
      await cp.stop();
      const saved = await karmada(["snapshot", "save", file, "--storage", source]);
      expect(saved.stderr).toBe("");
      expect(saved.stdout).toMatch(new RegExp(`^Snapshot saved to ${file}: \\d+ keys at revision \\d+`));

      const target = etcd
        ? `etcd://${etcd.endpoint}?prefix=/restored`
        : `sqlite://${join(dir, "restored.db")}`;
      const restored = await karmada(["snapshot", "restore", file, "--storage", target]);
      expect(restored.stderr).toBe("");
      expect(restored.stdout).toMatch(/restored: \d+ keys/);
      const again = await karmada(["snapshot", "restore", file, "--storage", target]);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(
        /^karmada snapshot: restore: the target store is not empty \(\d+ keys\): restore only into an empty store\n$/,
      );

      const copy = await startControlPlane({
        storage: target,
        host: "127.0.0.1",
        port: 0,
        log: silentLogger,
      });
      try {
        const items = (await new LocalClient(copy.api.context).list(RESOURCES.configmaps, "default")).items;
        expect(items.map((c) => c.metadata.name).sort()).toEqual(
          Array.from({ length: 20 }, (_, i) => `cm-${i}`).sort(),
        );
      } finally {
        await copy.stop();
      }
    } finally {
      await cp.stop().catch(() => undefined);
    }
  });

  it("says what is wrong with a store URL or a file, in one line", { timeout: 60_000 }, async () => {
    const bad = await karmada(["snapshot", "save", join(dir, "x"), "--storage", "nosuch://x"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /^karmada snapshot: --storage: invalid store URL "nosuch:\/\/x": unknown scheme/,
    );
    const missing = await karmada(["snapshot", "restore", join(dir, "none"), "--storage", "memory:"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^karmada snapshot: restore: ENOENT/);
    expect(missing.stderr).not.toMatch(/^\s+at /m);
  });
});
