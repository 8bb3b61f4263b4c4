/**
 * A throwaway single-member etcd on loopback, for tests and measurements: free ports, a
 * temporary data directory, and a stop that always kills the process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ETCD_BINARY = "/usr/bin/etcd";

export interface LocalEtcdOptions {
  binary?: string;
  /** Serve clients over https with these files, requiring client certificates signed by `caFile`. */
  tls?: { caFile: string; certFile: string; keyFile: string; clientCertFile: string; clientKeyFile: string };
  /** More etcd flags, e.g. `--experimental-watch-progress-notify-interval=1s`. */
  args?: string[];
}

export interface LocalEtcd {
  /** `127.0.0.1:<port>` */
  endpoint: string;
  /** Stops the process and keeps its data; `start()` brings it back on the same ports. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the process and removes its data. */
  destroy(): Promise<void>;
}

export async function startLocalEtcd(options: LocalEtcdOptions = {}): Promise<LocalEtcd> {
  const dir = mkdtempSync(join(tmpdir(), "karmada-etcd-"));
  let lastError: unknown;
  // Free ports are found by binding and releasing them; another process can take one in between.
  for (let attempt = 0; attempt < 3; attempt++) {
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    const etcd = new LocalEtcdProcess(options, dir, clientPort, peerPort);
    try {
      await etcd.start();
      return etcd;
    } catch (err) {
      lastError = err;
      await etcd.stop();
      rmSync(join(dir, "data"), { recursive: true, force: true });
    }
  }
  rmSync(dir, { recursive: true, force: true });
  throw lastError;
}

class LocalEtcdProcess implements LocalEtcd {
  readonly endpoint: string;
  #options: LocalEtcdOptions;
  #dir: string;
  #clientPort: number;
  #peerPort: number;
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  #killOnExit = (): void => {
    this.#child?.kill("SIGKILL");
  };

  constructor(options: LocalEtcdOptions, dir: string, clientPort: number, peerPort: number) {
    this.#options = options;
    this.#dir = dir;
    this.#clientPort = clientPort;
    this.#peerPort = peerPort;
    this.endpoint = `127.0.0.1:${clientPort}`;
  }

  async start(): Promise<void> {
    const scheme = this.#options.tls ? "https" : "http";
    const clientUrl = `${scheme}://127.0.0.1:${this.#clientPort}`;
    const peerUrl = `http://127.0.0.1:${this.#peerPort}`;
    const args = [
      "--name=local",
      `--data-dir=${join(this.#dir, "data")}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=local=${peerUrl}`,
      "--logger=zap",
      "--log-outputs=stderr",
      ...(this.#options.tls
        ? [
            `--cert-file=${this.#options.tls.certFile}`,
            `--key-file=${this.#options.tls.keyFile}`,
            `--trusted-ca-file=${this.#options.tls.caFile}`,
            "--client-cert-auth",
          ]
        : []),
      ...(this.#options.args ?? []),
    ];
    const log = openSync(join(this.#dir, "etcd.log"), "a");
    const child = spawn(this.#options.binary ?? ETCD_BINARY, args, { stdio: ["ignore", log, log] });
    closeSync(log);
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
    process.once("exit", this.#killOnExit);
    let failure: Error | undefined;
    child.once("error", (err) => {
      failure = err;
    });
    child.once("exit", (code, signal) => {
      failure ??= new Error(`etcd exited (${signal ?? code}): ${this.#logTail()}`);
    });
    for (let i = 0; i < 200; i++) {
      if (failure) throw failure;
      if (await this.#healthy()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`etcd did not become healthy: ${this.#logTail()}`);
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = undefined;
    process.removeListener("exit", this.#killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await this.#exited;
      clearTimeout(timer);
    }
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #healthy(): Promise<boolean> {
    const tls = this.#options.tls;
    const request = tls ? https.request : http.request;
    return new Promise((resolve) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: this.#clientPort,
          path: "/health",
          timeout: 1000,
          ...(tls && {
            ca: readFileSync(tls.caFile),
            cert: readFileSync(tls.clientCertFile),
            key: readFileSync(tls.clientKeyFile),
          }),
        },
        (res) => {
          let body = "";
          res.on("data", (d: Buffer) => {
            body += d.toString();
          });
          res.on("end", () => resolve(res.statusCode === 200 && body.includes('"true"')));
        },
      );
      req.on("error", () => resolve(false));
      req.on("timeout", () => req.destroy());
      req.end();
    });
  }

  #logTail(): string {
    try {
      return readFileSync(join(this.#dir, "etcd.log"), "utf8").slice(-2000);
    } catch {
      return "(no log)";
    }
  }
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
