/**
 * One `karmada <component>` process a trial can kill (SIGKILL) and start again with the same
 * flags and data, keeping the tail of its output for the report when it fails to start.
 *
 * A supervised component that exits on its own is started again after a back-off, as its
 * Deployment's kubelet would: an elected component exits when it loses its lease (upstream's
 * behaviour, e.g. when the API server is gone longer than the renew deadline).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const KARMADA_BIN = fileURLToPath(new URL("../bin/karmada", import.meta.url));
export const KARMADACTL_BIN = fileURLToPath(new URL("../bin/karmadactl", import.meta.url));
const START_TIMEOUT_MS = 90_000;
const TAIL = 6_000;
/** Back-off before a supervised restart: doubles per failed start, as a kubelet's crash back-off (shortened). */
const BACKOFF_MS = [500, 10_000] as const;

/** A port free right now (bound and released): components restart on the same port. */
export { freePort } from "../src/storage/etcd/local-etcd.ts";

export class Component {
  readonly name: string;
  readonly args: string[];
  readonly #ready: RegExp;
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  #out = "";
  /** Starts after the first. */
  restarts = 0;
  #started = 0;

  /** Exits nobody asked for (each followed by a supervised restart). */
  unexpectedExits = 0;
  readonly #supervised: boolean;
  #expectExit = false;
  #backoff: number = BACKOFF_MS[0];
  #restartTimer: NodeJS.Timeout | undefined;
  #log: (line: string) => void;

  constructor(
    name: string,
    args: string[],
    ready: RegExp,
    opts: { supervised?: boolean; log?: (line: string) => void } = {},
  ) {
    this.name = name;
    this.args = args;
    this.#ready = ready;
    this.#supervised = opts.supervised ?? false;
    this.#log = opts.log ?? (() => {});
  }

  #onExit(child: ChildProcess): void {
    if (this.#expectExit || !this.#supervised || child !== this.#child) return;
    this.unexpectedExits++;
    const wait = this.#backoff;
    this.#backoff = Math.min(BACKOFF_MS[1], this.#backoff * 2);
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      this.start().then(
        () => {
          this.#backoff = BACKOFF_MS[0];
        },
        (err: Error) => this.#log(`${this.name}: supervised restart failed: ${err.message.split("\n")[0]}`),
      );
    }, wait);
  }

  get running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** The last lines it printed. */
  tail(): string {
    return this.#out.slice(-1500);
  }

  /** Spawns the process and resolves with the first capture of the ready pattern. */
  start(): Promise<string> {
    if (this.#started++ > 0) this.restarts++;
    this.#out = "";
    this.#expectExit = false;
    clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    const child = spawn(process.execPath, [KARMADA_BIN, ...this.args], { stdio: ["ignore", "pipe", "pipe"] });
    this.#child = child;
    this.#exited = new Promise((resolve) =>
      child.once("exit", () => {
        resolve();
        this.#onExit(child);
      }),
    );
    return new Promise((resolve, reject) => {
      let done = false;
      const timer = setTimeout(() => {
        done = true;
        reject(new Error(`${this.name}: not ready within ${START_TIMEOUT_MS} ms: ${this.tail()}`));
      }, START_TIMEOUT_MS);
      const read = (d: Buffer): void => {
        this.#out = (this.#out + d.toString()).slice(-TAIL);
        const m = done ? null : this.#ready.exec(this.#out);
        if (m) {
          done = true;
          clearTimeout(timer);
          resolve(m[1] ?? m[0]);
        }
      };
      child.stdout!.on("data", read);
      child.stderr!.on("data", read);
      // TRIALS_LOG_DIR keeps every process's whole output, one file per name, across restarts.
      const dir = process.env.TRIALS_LOG_DIR;
      if (dir) {
        const file = createWriteStream(join(dir, `${this.name}.log`), { flags: "a" });
        file.write(`--- ${new Date().toISOString()} start ${this.#started}\n`);
        child.stdout!.pipe(file, { end: false });
        child.stderr!.pipe(file, { end: false });
        // "close": after the last of its output.
        child.once("close", (code, signal) =>
          file.end(`--- ${new Date().toISOString()} exit ${signal ?? code}\n`),
        );
      }
      child.once("exit", (code, signal) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        reject(new Error(`${this.name} exited (${signal ?? code}) before it was ready: ${this.tail()}`));
      });
    });
  }

  /** SIGKILL, as a crash: nothing is flushed or released. */
  async kill(): Promise<void> {
    this.#expectExit = true;
    clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    const child = this.#child;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await this.#exited;
  }

  /** SIGTERM, then SIGKILL after 5 s. */
  async stop(): Promise<void> {
    this.#expectExit = true;
    clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    const child = this.#child;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await this.#exited;
      clearTimeout(timer);
    }
    this.#child = undefined;
  }
}
