import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runStoreConformance } from "../conformance.ts";
import { openStore } from "../open.ts";
import { CompactedError, FutureRevisionError, type Store, type WatchEvent } from "../store.ts";
import { ETCD_BINARY, freePort, type LocalEtcd, startLocalEtcd } from "./local-etcd.ts";
import { EtcdStore, type EtcdStoreOptions } from "./store.ts";

const haveEtcd = existsSync(ETCD_BINARY);
const haveOpenssl = spawnSync("openssl", ["version"]).status === 0;
const title = haveEtcd
  ? "etcd backend"
  : `etcd backend (skipped: ${ETCD_BINARY} not found; apt-get install etcd-server)`;

async function until(cond: () => boolean, what: string, tries = 500): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function collect(store: Store, prefix: string, after: number) {
  const out = {
    events: [] as WatchEvent[],
    errors: [] as Error[],
    progress: [] as number[],
    close: () => {},
  };
  const w = store.watch(prefix, after, {
    onEvents: (evs) => out.events.push(...evs),
    onError: (err) => out.errors.push(err),
    onProgress: (rev) => out.progress.push(rev),
  });
  out.close = () => w.close();
  return out;
}

describe.skipIf(!haveEtcd)(title, () => {
  let etcd: LocalEtcd;
  beforeAll(async () => {
    etcd = await startLocalEtcd({ args: ["--experimental-watch-progress-notify-interval=500ms"] });
  });
  afterAll(async () => {
    await etcd?.destroy();
  });

  let n = 0;
  runStoreConformance(
    "etcd",
    async () => new EtcdStore({ endpoints: [etcd.endpoint], prefix: `/conformance-${n++}` }),
  );

  describe("EtcdStore", () => {
    const stores: Store[] = [];
    function open(options: Partial<EtcdStoreOptions> = {}): EtcdStore {
      const s = new EtcdStore({ endpoints: [etcd.endpoint], prefix: `/specific-${n++}`, ...options });
      stores.push(s);
      return s;
    }
    afterEach(async () => {
      for (const s of stores.splice(0)) await s.close();
    });

    it("shares one stream among watchers of recent revisions, and replays the recent past from it", async () => {
      const s = open();
      const first = collect(s, "/f/", await s.currentRevision());
      // Give the shared stream time to learn where it starts.
      await new Promise((r) => setTimeout(r, 300));
      const a = await s.create("/f/a", "1");
      const b = await s.create("/f/b", "2");
      await until(() => first.events.length === 2, "the first watcher's events");
      const late = collect(s, "/f/", a.modRevision);
      const many = Array.from({ length: 20 }, () => collect(s, "/f/", b.modRevision));
      await s.create("/f/c", "3");
      await s.create("/g/other", "x");
      await until(
        () => late.events.length === 2 && many.every((w) => w.events.length === 1),
        "shared-stream events",
      );
      expect(late.events.map((e) => e.kv.value)).toEqual(["2", "3"]);
      for (const w of many) expect(w.events.map((e) => e.kv.key)).toEqual(["/f/c"]);
      for (const w of [first, late, ...many]) w.close();
    });

    it("keeps control planes that share an etcd apart by key prefix", async () => {
      const a = open({ prefix: "/plane-a" });
      const ab = open({ prefix: "/plane-ab/" });
      const raw = open({ prefix: "" });
      await a.create("/x", "from a");
      await ab.create("/x", "from ab");
      const wa = collect(a, "", await a.currentRevision());
      await ab.create("/y", "from ab");
      const y = await a.create("/y", "from a");
      await until(() => wa.events.length === 1, "a's own event");
      wa.close();
      expect(wa.events[0]!.kv).toEqual(y);
      expect((await a.list("")).kvs.map((kv) => `${kv.key}=${kv.value}`)).toEqual(["/x=from a", "/y=from a"]);
      expect(await ab.count("")).toBe(2);
      expect((await raw.get("/plane-a//x")).kv?.value).toBe("from a");
      expect((await raw.list("/plane-ab/")).kvs.map((kv) => kv.key)).toEqual([
        "/plane-ab//x",
        "/plane-ab//y",
      ]);
    });

    it("fails over to the next endpoint when one cannot be reached", async () => {
      const dead = `127.0.0.1:${await freePort()}`;
      const s = open({ endpoints: [dead, etcd.endpoint], prefix: "/failover" });
      const other = open({ prefix: "/failover" });
      // The watch starts before any call found the live endpoint, so it fails over itself.
      const w = collect(s, "/f/", await other.currentRevision());
      const a = await s.create("/f/a", "1");
      expect((await s.get("/f/a")).kv).toEqual(a);
      await until(() => w.events.length === 1, "the event through the live endpoint");
      w.close();
      expect(w.errors).toEqual([]);
    });

    it("reports when no endpoint answers", async () => {
      const s = open({ endpoints: [`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`] });
      await expect(s.get("/a")).rejects.toThrow(/no endpoint answered .*ECONNREFUSED/);
      await expect(s.create("/a", "1")).rejects.toThrow(/no endpoint answered/);
    });

    it("finds the compacted revision and reports reads outside the history", async () => {
      const s = open();
      const a = await s.create("/c/a", "1");
      const a2 = await s.update("/c/a", "2", a.modRevision);
      await s.update("/c/a", "3", a2.modRevision);
      await s.compact(a2.modRevision);
      expect(await s.compactedRevision()).toBe(a2.modRevision);
      const stale = s.get("/c/a", { revision: a.modRevision });
      await expect(stale).rejects.toBeInstanceOf(CompactedError);
      await stale.catch((e: CompactedError) => expect(e.compacted).toBe(a2.modRevision));
      const now = await s.currentRevision();
      await expect(s.list("/c/", { revision: now + 10 })).rejects.toBeInstanceOf(FutureRevisionError);
      await expect(s.compact(now + 10)).rejects.toBeInstanceOf(FutureRevisionError);
      await s.compact(a.modRevision); // already compacted past it: nothing to do
      const w = collect(s, "/c/", a.modRevision - 1);
      await until(() => w.errors.length === 1, "the compaction error");
      expect(w.errors[0]).toBeInstanceOf(CompactedError);
      expect((w.errors[0] as CompactedError).compacted).toBe(a2.modRevision);
    });

    it("sends progress notices to idle watchers", async () => {
      const s = open();
      const idle = collect(s, "/idle/", await s.currentRevision());
      const written = await s.create("/elsewhere", "1");
      await until(() => idle.progress.some((r) => r >= written.modRevision), "a progress notice");
      idle.close();
      expect(idle.events).toEqual([]);
    });

    it("resumes a watch where it stopped when etcd restarts", async () => {
      const s = open();
      const w = collect(s, "/r/", await s.currentRevision());
      const a = await s.create("/r/a", "1");
      await until(() => w.events.length === 1, "the first event");
      await etcd.stop();
      await etcd.start();
      const b = await s.create("/r/b", "2");
      await until(() => w.events.length === 2, "the event after the restart", 1000);
      w.close();
      expect(w.events.map((e) => e.kv)).toEqual([a, b]);
      expect(w.errors).toEqual([]);
    });

    it("works without a key prefix, over the whole key space", async () => {
      const s = open({ prefix: "" });
      const before = await s.count("");
      const a = await s.create("/no-prefix/a", "1");
      expect(await s.currentRevision()).toBe(a.modRevision);
      expect(await s.count("")).toBe(before + 1);
      expect((await s.list("", { limit: 1 })).remaining).toBe(before);
      await expect(s.create("", "x")).rejects.toThrow(/must not be empty/);
    });

    it("opens from a URL with a key prefix", async () => {
      const s = await openStore(`etcd://${etcd.endpoint}?prefix=/from-url`);
      stores.push(s);
      await s.create("/k", "v");
      const raw = open({ prefix: "" });
      expect((await raw.get("/from-url//k")).kv?.value).toBe("v");
    });
  });

  describe.skipIf(!haveOpenssl)("over TLS with client certificates", () => {
    let dir: string;
    let tlsEtcd: LocalEtcd;
    const stores: Store[] = [];
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "karmada-etcd-pki-"));
      makePki(dir);
      tlsEtcd = await startLocalEtcd({
        tls: {
          caFile: join(dir, "ca.crt"),
          certFile: join(dir, "server.crt"),
          keyFile: join(dir, "server.key"),
          clientCertFile: join(dir, "client.crt"),
          clientKeyFile: join(dir, "client.key"),
        },
      });
    });
    afterAll(async () => {
      for (const s of stores.splice(0)) await s.close();
      await tlsEtcd?.destroy();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("reads, writes and watches through a URL with cacert, cert and key", async () => {
      const url = `etcd://${tlsEtcd.endpoint}?prefix=/tls&cacert=${join(dir, "ca.crt")}&cert=${join(dir, "client.crt")}&key=${join(dir, "client.key")}`;
      const s = await openStore(url);
      stores.push(s);
      const w = collect(s, "/t/", await s.currentRevision());
      const a = await s.create("/t/a", "1");
      expect((await s.get("/t/a")).kv).toEqual(a);
      await until(() => w.events.length === 1, "the event over TLS");
      w.close();
      expect(w.events[0]!.kv).toEqual(a);
    });

    it("is refused without a client certificate", async () => {
      await expect(openStore(`etcd://${tlsEtcd.endpoint}?cacert=${join(dir, "ca.crt")}`)).rejects.toThrow(
        /etcd does not answer/,
      );
    });

    it("refuses a server its CA did not sign", async () => {
      const other = join(dir, "other");
      makePki(other);
      const url = `etcd://${tlsEtcd.endpoint}?cacert=${join(other, "ca.crt")}&cert=${join(dir, "client.crt")}&key=${join(dir, "client.key")}`;
      await expect(openStore(url)).rejects.toThrow(/etcd does not answer.*(certificate|self.signed)/i);
    });
  });
});

/** A CA, a server certificate for 127.0.0.1 and a client certificate, with the openssl CLI. */
function makePki(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl("req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=test-ca");
  writeFileSync(
    join(dir, "server.ext"),
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n",
  );
  writeFileSync(join(dir, "client.ext"), "extendedKeyUsage=clientAuth\n");
  for (const name of ["server", "client"]) {
    openssl("req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`);
    openssl(
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      `${name}.crt`,
      "-days",
      "1",
      "-extfile",
      `${name}.ext`,
    );
  }
}
