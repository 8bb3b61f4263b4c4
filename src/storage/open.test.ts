import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freePort } from "./etcd/local-etcd.ts";
import { openStore, parseStoreUrl, type StoreUrl, storeUrlFromEtcdFlags } from "./open.ts";
import type { Store } from "./store.ts";

describe("parseStoreUrl", () => {
  const valid: [string, StoreUrl][] = [
    ["memory:", { backend: "memory" }],
    ["memory://", { backend: "memory" }],
    ["sqlite://.karmada/state.db", { backend: "sqlite", path: ".karmada/state.db" }],
    ["sqlite:///var/lib/karmada/state.db", { backend: "sqlite", path: "/var/lib/karmada/state.db" }],
    ["sqlite://state.db", { backend: "sqlite", path: "state.db" }],
    ["sqlite://:memory:", { backend: "sqlite", path: ":memory:" }],
    ["etcd://127.0.0.1:2379", { backend: "etcd", endpoints: ["127.0.0.1:2379"] }],
    ["etcd://etcd-0", { backend: "etcd", endpoints: ["etcd-0:2379"] }],
    ["etcd://[::1]:2379", { backend: "etcd", endpoints: ["[::1]:2379"] }],
    ["etcd://h1:1,h2:2,h3", { backend: "etcd", endpoints: ["h1:1", "h2:2", "h3:2379"] }],
    ["etcd://h1:1?prefix=/karmada", { backend: "etcd", endpoints: ["h1:1"], prefix: "/karmada" }],
    [
      "etcd://h1:1,h2:2?prefix=/p&cacert=/pki/ca.crt&cert=/pki/client.crt&key=/pki/client.key",
      {
        backend: "etcd",
        endpoints: ["h1:1", "h2:2"],
        prefix: "/p",
        caFile: "/pki/ca.crt",
        certFile: "/pki/client.crt",
        keyFile: "/pki/client.key",
      },
    ],
    ["etcd://h1:1?cacert=ca.pem", { backend: "etcd", endpoints: ["h1:1"], caFile: "ca.pem" }],
  ];
  it.each(valid)("parses %s", (url, expected) => {
    expect(parseStoreUrl(url)).toEqual(expected);
  });

  const invalid: [string, RegExp][] = [
    ["", /no scheme/],
    ["/var/lib/state.db", /no scheme/],
    ["postgres://db/karmada", /unknown scheme "postgres:"; use memory:, sqlite:\/\/<path> or etcd:\/\//],
    ["memory:extra", /memory: takes no path/],
    ["sqlite:state.db", /expected sqlite:\/\/<path>/],
    ["sqlite://", /missing the database file path/],
    ["sqlite:///var/lib/", /names a directory/],
    ["sqlite://state.db?cache=shared", /take no query parameters/],
    ["etcd:127.0.0.1:2379", /expected etcd:\/\/host:port/],
    ["etcd://", /missing host:port/],
    ["etcd://h1:1,,h2:2", /empty endpoint/],
    ["etcd://h1:99999", /invalid port/],
    ["etcd://h1:1/registry", /no path; set a key prefix with \?prefix=/],
    ["etcd://h1:1?prefix=/a&tls=true", /unknown parameter "tls" \(known: prefix, cacert, cert, key\)/],
    ["etcd://h1:1?cert=c.pem", /cert and key must be given together/],
    ["etcd://h1:1?key=k.pem", /cert and key must be given together/],
    ["etcd://h1:1?prefix=", /parameter "prefix" is empty/],
    ["etcd://h1:1?prefix=/a&prefix=/b", /given twice/],
  ];
  it.each(invalid)("rejects %j", (url, message) => {
    expect(() => parseStoreUrl(url)).toThrow(message);
    expect(() => parseStoreUrl(url)).toThrow(`invalid store URL "${url}"`);
  });
});

describe("openStore", () => {
  let dir: string;
  const cwd = process.cwd();
  const opened: Store[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "karmada-open-"));
  });
  afterEach(async () => {
    process.chdir(cwd);
    for (const s of opened.splice(0)) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  async function open(url: string): Promise<Store> {
    const s = await openStore(url);
    opened.push(s);
    return s;
  }

  it("opens the memory backend", async () => {
    expect((await open("memory:")).backend).toBe("memory");
  });

  it("opens SQLite at an absolute path, creating parent directories", async () => {
    const path = join(dir, "a", "b", "state.db");
    const s = await open(`sqlite://${path}`);
    expect(s.backend).toBe("sqlite");
    await s.create("/x", "1");
    expect(existsSync(path)).toBe(true);
  });

  it("opens SQLite at a path relative to the working directory", async () => {
    process.chdir(dir);
    const s = await open("sqlite://.karmada/state.db");
    await s.create("/x", "1");
    expect(existsSync(join(dir, ".karmada", "state.db"))).toBe(true);
  });

  it("opens SQLite in memory", async () => {
    const s = await open("sqlite://:memory:");
    expect((await s.create("/x", "1")).modRevision).toBe(2);
  });

  it("says so when etcd does not answer", async () => {
    const port = await freePort();
    await expect(openStore(`etcd://127.0.0.1:${port}`)).rejects.toThrow(
      new RegExp(`etcd://127.0.0.1:${port}.*etcd does not answer.*no endpoint answered`),
    );
  });

  it("says so when a TLS file cannot be read", async () => {
    await expect(openStore(`etcd://127.0.0.1:2379?cacert=${join(dir, "missing.pem")}`)).rejects.toThrow(
      /cannot read the CA bundle .*missing\.pem/,
    );
  });
});

describe("kube-apiserver's etcd flags", () => {
  it("make an etcd store URL", () => {
    const url = storeUrlFromEtcdFlags({
      servers: ["https://10.0.0.1:2379", "https://10.0.0.2"],
      prefix: "/registry",
      caFile: "/pki/ca.crt",
      certFile: "/pki/c.crt",
      keyFile: "/pki/c.key",
    });
    expect(parseStoreUrl(url)).toEqual({
      backend: "etcd",
      endpoints: ["10.0.0.1:2379", "10.0.0.2:2379"],
      prefix: "/registry",
      caFile: "/pki/ca.crt",
      certFile: "/pki/c.crt",
      keyFile: "/pki/c.key",
    });
    expect(parseStoreUrl(storeUrlFromEtcdFlags({ servers: ["http://127.0.0.1:2379"] }))).toEqual({
      backend: "etcd",
      endpoints: ["127.0.0.1:2379"],
      prefix: "/registry",
    });
  });

  it.each([
    [{ servers: [] }, "--etcd-servers: give at least one"],
    [{ servers: ["https://a:1", "http://b:2"] }, "use https:// for every server or for none"],
    [{ servers: ["https://a:1"] }, "--etcd-cafile: give the CA"],
    [
      { servers: ["https://a:1"], caFile: "ca", certFile: "c" },
      "--etcd-certfile and --etcd-keyfile go together",
    ],
    [{ servers: ["unix:///x"] }, "only http:// and https://"],
    [{ servers: ["https://a:1/path"], caFile: "ca" }, "no path is allowed"],
  ])("%j is refused", (flags, message) => {
    expect(() => storeUrlFromEtcdFlags(flags)).toThrow(message);
  });
});
