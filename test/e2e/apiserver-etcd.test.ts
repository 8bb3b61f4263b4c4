/**
 * `karmada apiserver` on etcd through kube-apiserver's flags (`--etcd-servers`,
 * `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`, `--etcd-prefix`), against Debian's etcd
 * with client-certificate auth and a CA of the test's own; bad combinations are one line
 * naming the flag.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClusterPki } from "../../src/pki/cluster-pki.ts";
import { issueCertificate } from "../../src/pki/x509.ts";
import { ETCD_BINARY, type LocalEtcd, startLocalEtcd } from "../../src/storage/etcd/local-etcd.ts";
import { openStore } from "../../src/storage/open.ts";

const BIN = fileURLToPath(new URL("../../bin/karmada", import.meta.url));

function run(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, "apiserver", "--secure-port", "0", ...args],
      { timeout: 30_000 },
      (err, _o, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe("karmada apiserver's etcd flags", () => {
  it.each([
    [
      ["--storage", "memory:", "--etcd-servers", "http://127.0.0.1:2379"],
      "give --storage or --etcd-servers, not both",
    ],
    [
      ["--etcd-servers", "https://127.0.0.1:2379"],
      "--etcd-cafile: give the CA that signed the etcd servers' certificates",
    ],
    [["--etcd-servers", "127.0.0.1:2379"], '--etcd-servers: "127.0.0.1:2379" is not a URL'],
    [
      ["--etcd-servers", "http://127.0.0.1:2379", "--etcd-certfile", "x"],
      "--etcd-cafile/--etcd-certfile/--etcd-keyfile need https:// servers in --etcd-servers",
    ],
  ])("%j is refused", { timeout: 60_000 }, async (args, message) => {
    const r = await run(args);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`karmada apiserver: ${message}`);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});

describe.skipIf(!existsSync(ETCD_BINARY))("karmada apiserver on a TLS etcd", () => {
  let dir: string;
  let etcd: LocalEtcd;
  let child: ChildProcess | undefined;
  const file = (name: string) => join(dir, name);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "apiserver-etcd-"));
    const pki = await createClusterPki({ caName: "etcd-ca" });
    // etcd's gRPC gateway dials etcd itself with the serving certificate: it must be a client's too.
    const serving = await issueCertificate(pki.ca, {
      commonName: "etcd",
      hosts: ["127.0.0.1", "localhost"],
      usage: "server+client",
      notAfter: new Date(Date.now() + 3_600_000),
    });
    await writeFile(file("ca.crt"), pki.ca.certPem);
    await writeFile(file("server.crt"), serving.certPem);
    await writeFile(file("server.key"), serving.keyPem);
    await writeFile(file("client.crt"), pki.admin.certPem);
    await writeFile(file("client.key"), pki.admin.keyPem);
    etcd = await startLocalEtcd({
      tls: {
        caFile: file("ca.crt"),
        certFile: file("server.crt"),
        keyFile: file("server.key"),
        clientCertFile: file("client.crt"),
        clientKeyFile: file("client.key"),
      },
    });
  }, 60_000);

  afterAll(async () => {
    child?.kill("SIGTERM");
    await etcd?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("stores under --etcd-prefix and serves", { timeout: 60_000 }, async () => {
    child = spawn(process.execPath, [
      BIN,
      "apiserver",
      "--secure-port",
      "0",
      "--cert-dir",
      file("certs"),
      `--etcd-servers=https://${etcd.endpoint}`,
      `--etcd-cafile=${file("ca.crt")}`,
      `--etcd-certfile=${file("client.crt")}`,
      `--etcd-keyfile=${file("client.key")}`,
      "--etcd-prefix=/karmada-test",
    ]);
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 45_000);
      const read = (d: Buffer) => {
        out += d.toString();
        const m = /listening on (https:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      child!.stdout!.on("data", read);
      child!.stderr!.on("data", read);
    });
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const raw = await openStore(
      `etcd://${etcd.endpoint}?cacert=${file("ca.crt")}&cert=${file("client.crt")}&key=${file("client.key")}`,
    );
    try {
      const { kvs } = await raw.list("/karmada-test/");
      expect(kvs.some((kv) => kv.key.startsWith("/karmada-test/") && kv.key.includes("namespaces"))).toBe(
        true,
      );
    } finally {
      await raw.close();
    }
  });
});
