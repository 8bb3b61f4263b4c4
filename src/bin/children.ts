/**
 * The child processes `karmada up` runs (members; with `--ha`, each node's API server,
 * controller manager and scheduler): started with their stderr in a log file, ready when a
 * line of their stdout matches, stopped with SIGTERM (SIGKILL after 5 s). Each gets
 * `--stop-with-stdin` and our stdin pipe, so it stops with `up` however `up` dies.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, closeSync, openSync } from "node:fs";
import { createInterface } from "node:readline";

export interface StartedChild {
  process: ChildProcess;
  /** The first capture group of the ready line. */
  ready: string;
}

/**
 * Spawns `cmd[0] ...cmd[1..] ...args --stop-with-stdin` with stderr (and stdout) appended
 * to `logFile`, and resolves once a stdout line matches `readyLine` (or rejects, naming
 * `what` and the log, if the child exits first or `timeoutMs` passes).
 */
export function startChild(
  cmd: readonly string[],
  args: readonly string[],
  opts: { what: string; logFile: string; readyLine: RegExp; timeoutMs?: number },
): Promise<StartedChild> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const log = openSync(opts.logFile, "a");
  const child = spawn(cmd[0]!, [...cmd.slice(1), ...args, "--stop-with-stdin"], {
    stdio: ["pipe", "pipe", log],
  });
  closeSync(log);
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    let done = false;
    const settle = (err: Error | undefined, ready?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.off("exit", onExit);
      if (err) {
        child.kill("SIGKILL");
        reject(err);
      } else resolve({ process: child, ready: ready! });
    };
    const onExit = (code: number | null, signal: string | null): void =>
      settle(new Error(`${opts.what} exited (${signal ?? code}) before it was ready; see ${opts.logFile}`));
    const timer = setTimeout(
      () => settle(new Error(`${opts.what} was not ready within ${timeoutMs / 1000} s; see ${opts.logFile}`)),
      timeoutMs,
    );
    // The pipe is read for as long as the child runs, so it never blocks on a full pipe.
    lines.on("line", (line) => {
      appendFileSync(opts.logFile, `${line}\n`);
      const m = opts.readyLine.exec(line);
      if (m) settle(undefined, m[1] ?? line);
    });
    child.once("exit", onExit);
  });
}

/** SIGTERM, then SIGKILL if it has not exited within 5 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}
