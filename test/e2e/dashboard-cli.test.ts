/**
 * `karmada dashboard` as a user runs it: the process prints its URL and serves as the
 * kubeconfig's user on loopback; bad flags, an unreadable kubeconfig and a taken port are
 * one line each, naming the flag, and exit 1.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CSRF_HEADER } from "../../src/dashboard/guard.ts";
import { rawRequest } from "../support/dashboard-browser.ts";
import { eventually, startTestServer, type TestServer } from "../support/kubectl.ts";

const BIN = fileURLToPath(new URL("../../bin/karmada", import.meta.url));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, "dashboard", ...args], { timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("karmada dashboard", () => {
  let server: TestServer;
  let taken: Server;
  let takenPort: number;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    takenPort = (taken.address() as { port: number }).port;
  });

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
    await new Promise<void>((resolve) => taken.close(() => resolve()));
    await server.close();
  });

  it("serves on loopback as the kubeconfig's user and prints where", async () => {
    const child = spawn(
      process.execPath,
      [BIN, "dashboard", "--kubeconfig", server.kubeconfig, "--port", "0"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    children.push(child);
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    const url = await eventually(
      async () => /karmada dashboard listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1],
      `the listening line (output so far: ${out})`,
      300,
      100,
    );
    const page = await rawRequest(url);
    expect(page.status).toBe(200);
    const who = await rawRequest(`${url}api/whoami`, { headers: { [CSRF_HEADER]: "1" } });
    expect(JSON.parse(who.body)).toMatchObject({ mode: "local", username: "system:admin" });
    await eventually(async () => out.includes("acting as system:admin"), "the identity line", 100, 100);
    // Probes, as every component answers them.
    const ready = await rawRequest(`${url}readyz?verbose`);
    expect([ready.status, ready.body]).toEqual([200, "[+]ping ok\n[+]web-bundle ok\nreadyz check passed\n"]);
    expect((await rawRequest(`${url}livez`)).body).toBe("ok");
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it.each([
    [
      "an unreadable kubeconfig",
      ["--kubeconfig", "/nonexistent/kubeconfig"],
      /^karmada dashboard: --kubeconfig: cannot load kubeconfig \/nonexistent\/kubeconfig: .+\n$/,
    ],
    [
      "a context the kubeconfig lacks",
      ["--context", "nope"],
      /^karmada dashboard: --context: cannot load kubeconfig .+: .*nope.*\n$/,
    ],
    ["a bad port", ["--port", "70000"], /^karmada dashboard: --port 70000: .+\n$/],
    [
      "half a certificate",
      ["--tls-cert-file", "/tmp/x.crt"],
      /^karmada dashboard: --tls-cert-file and --tls-private-key-file go together\n$/,
    ],
    [
      "an unreadable certificate",
      ["--tls-cert-file", "/nonexistent.crt", "--tls-private-key-file", "/nonexistent.key"],
      /^karmada dashboard: --tls-cert-file \/nonexistent\.crt: cannot read it: .+\n$/,
    ],
  ])("refuses %s in one line, exit 1", async (_, args, message) => {
    const needsKubeconfig = !args.includes("--kubeconfig");
    const r = await run([...(needsKubeconfig ? ["--kubeconfig", server.kubeconfig] : []), ...args]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe("");
  });

  it("says the port is taken, naming the flag", async () => {
    const r = await run(["--kubeconfig", server.kubeconfig, "--port", String(takenPort)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `karmada dashboard: --port ${takenPort}: cannot listen on 127.0.0.1:${takenPort}: the port is already in use (--port 0 picks a free one)\n`,
    );
  });

  it("documents its flags", async () => {
    const r = await new Promise<{ stdout: string }>((resolve) =>
      execFile(process.execPath, [BIN, "dashboard", "--help"], (_, stdout) => resolve({ stdout })),
    );
    for (const flag of [
      "--kubeconfig",
      "--context",
      "--bind-address",
      "--port",
      "--tls-cert-file",
      "--tls-private-key-file",
    ]) {
      expect(r.stdout).toContain(flag);
    }
    expect(r.stdout).toMatch(/--port <n>.*\(default:\s+8000\)/s);
    const up = await new Promise<{ stdout: string }>((resolve) =>
      execFile(process.execPath, [BIN, "up", "--help"], (_, stdout) => resolve({ stdout })),
    );
    expect(up.stdout).toContain("--dashboard-port");
    expect(up.stdout).toContain("--no-dashboard");
  });
});
