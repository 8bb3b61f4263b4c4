/**
 * `karmada apiserver` refuses security flags it cannot use as kube-apiserver does: one line
 * naming the flag and the file, exit status 1, no stack trace, before it listens.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../bin/karmada", import.meta.url));

function apiserver(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, "apiserver", "--storage", "memory:", "--secure-port", "0", ...args],
      { timeout: 30_000 },
      (err, _stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe("karmada apiserver with files it cannot use", () => {
  let dir: string;
  let garbage: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "apiserver-flags-"));
    garbage = join(dir, "garbage.pem");
    await writeFile(garbage, "not a PEM file\n");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ["--client-ca-file", "not a valid certificate"],
    ["--service-account-signing-key-file", "not a valid private key"],
    ["--service-account-key-file", "not a valid public key"],
  ])("%s with garbage", { timeout: 60_000 }, async (flag, why) => {
    const r = await apiserver(["--cert-dir", join(dir, "certs"), flag, garbage]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`karmada apiserver: ${flag} ${garbage}: ${why}`);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it("a --cert-dir that cannot be a directory", { timeout: 60_000 }, async () => {
    const r = await apiserver(["--cert-dir", join(garbage, "certs")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`karmada apiserver: --cert-dir ${join(garbage, "certs")}: ENOTDIR`);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
