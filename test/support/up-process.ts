/**
 * `karmada up` as a user runs it, for the e2e tests of `up` and `up --ha`: the process with
 * its output collected, a wait for "Local Karmada is running.", and the real kubectl on the
 * kubeconfig it writes.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually, KUBECTL, type KubectlResult } from "./kubectl.ts";

const BIN = fileURLToPath(new URL("../../bin/karmada", import.meta.url));

export interface Up {
  proc: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `karmada up --data-dir <dataDir> --port 0 ...args`. */
export function startUp(dataDir: string, args: readonly string[]): Up {
  const proc = spawn(process.execPath, [BIN, "up", "--data-dir", dataDir, "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout!.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  proc.stderr!.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { proc, output: () => out, exited };
}

/**
 * Waits (bounded: `tries` × 100 ms) until `up` says it is running; if it exits first, throws
 * at once with its output and the tail of the log it points at (the data directory goes with the test).
 */
export async function untilRunning(up: Up, tries = 900): Promise<void> {
  const running = (): boolean => up.output().includes("Local Karmada is running.");
  await eventually(async () => up.proc.exitCode !== null || running(), "karmada up to be ready", tries, 100);
  if (running()) return;
  const log = /see (\S+\.log)/.exec(up.output())?.[1];
  const tail = log && existsSync(log) ? `\n${log}:\n${readFileSync(log, "utf8").slice(-3000)}` : "";
  throw new Error(`karmada up exited: ${up.output()}${tail}`);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The real kubectl on `kubeconfig`, with its cache and HOME in `dir`. */
export function kubectlOn(dir: string, kubeconfig: string): (args: string[]) => Promise<KubectlResult> {
  return (args) =>
    new Promise((resolve) => {
      execFile(
        KUBECTL,
        [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(dir, "cache")}`, "--request-timeout=5s", ...args],
        { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir }, timeout: 30_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
}
