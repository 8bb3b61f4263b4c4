/**
 * etcds on loopback: throwaway ones for tests and measurements (a single member, or a cluster
 * of several, each its own process, ports and data directory; free ports, temporary data, and
 * a stop that always kills the process), and the kept cluster of `karmada up --ha`, whose
 * members come back on the same ports with the same data.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
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
  /** Members talk to each other over https with the `tls` files too (the certificate must be for server and client). */
  peerTls?: boolean;
  /** More etcd flags, e.g. `--experimental-watch-progress-notify-interval=1s`. */
  args?: string[];
}

export interface LocalEtcd {
  /** `127.0.0.1:<port>` */
  endpoint: string;
  /** Stops the process and keeps its data; `start()` brings it back on the same ports. */
  stop(): Promise<void>;
  /** Kills the process at once (SIGKILL), as a lost machine would; its data stays. */
  kill(): Promise<void>;
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

/** Where one member of a cluster lives, and the whole cluster's `--initial-cluster`. */
interface Membership {
  name: string;
  initialCluster: string;
  token: string;
}

class LocalEtcdProcess implements LocalEtcd {
  readonly endpoint: string;
  readonly peerUrl: string;
  #membership: Membership | undefined;
  #options: LocalEtcdOptions;
  #dir: string;
  #clientPort: number;
  #peerPort: number;
  #child: ChildProcess | undefined;
  #failure: Error | undefined;
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
    this.peerUrl = `${options.tls && options.peerTls ? "https" : "http"}://127.0.0.1:${peerPort}`;
  }

  /** Makes this process one member of a cluster (before its first start). */
  joinCluster(membership: Membership): void {
    this.#membership = membership;
  }

  /** Spawns the process without waiting for it to be healthy (a cluster's members wait for each other). */
  spawn(): void {
    const scheme = this.#options.tls ? "https" : "http";
    const clientUrl = `${scheme}://127.0.0.1:${this.#clientPort}`;
    const peerUrl = this.peerUrl;
    const name = this.#membership?.name ?? "local";
    const args = [
      `--name=${name}`,
      `--data-dir=${join(this.#dir, "data")}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=${this.#membership?.initialCluster ?? `local=${peerUrl}`}`,
      ...(this.#membership
        ? [`--initial-cluster-token=${this.#membership.token}`, "--initial-cluster-state=new"]
        : []),
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
      ...(this.#options.tls && this.#options.peerTls
        ? [
            `--peer-cert-file=${this.#options.tls.certFile}`,
            `--peer-key-file=${this.#options.tls.keyFile}`,
            `--peer-trusted-ca-file=${this.#options.tls.caFile}`,
            "--peer-client-cert-auth",
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
    child.once("exit", (code, signal) => {
      this.#failure ??= new Error(`etcd exited (${signal ?? code}): ${this.#logTail()}`);
    });
    child.once("error", (err) => {
      this.#failure = err;
    });
  }

  /** Waits until the member answers /health (in a cluster: once a quorum has formed). */
  async waitHealthy(): Promise<void> {
    for (let i = 0; i < 300; i++) {
      if (this.#failure) throw this.#failure;
      if (await this.#healthy()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`etcd did not become healthy: ${this.#logTail()}`);
  }

  async start(): Promise<void> {
    this.#failure = undefined;
    this.spawn();
    await this.waitHealthy();
  }

  async kill(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = undefined;
    process.removeListener("exit", this.#killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await this.#exited;
    }
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

/**
 * A cluster of `size` etcd members on loopback (each its own process and data), started
 * together so they form a quorum; `members[i].kill()` loses one as a machine would.
 */
export async function startLocalEtcdCluster(
  size: number,
  options: LocalEtcdOptions = {},
): Promise<{ members: LocalEtcd[]; endpoints: string[]; destroy(): Promise<void> }> {
  let lastError: unknown;
  // Free ports are found by binding and releasing them; another process can take one in between.
  for (let attempt = 0; attempt < 3; attempt++) {
    const ports = new Set<number>();
    while (ports.size < size * 2) ports.add(await freePort());
    const [...free] = ports;
    const members: LocalEtcdProcess[] = [];
    for (let i = 0; i < size; i++) {
      const dir = mkdtempSync(join(tmpdir(), `karmada-etcd-${i}-`));
      members.push(new LocalEtcdProcess(options, dir, free[2 * i]!, free[2 * i + 1]!));
    }
    const initialCluster = members.map((m, i) => `m${i}=${m.peerUrl}`).join(",");
    for (const [i, m] of members.entries())
      m.joinCluster({ name: `m${i}`, initialCluster, token: "karmada-ts-test" });
    const destroy = async (): Promise<void> => {
      for (const m of members) await m.destroy();
    };
    try {
      for (const m of members) m.spawn();
      for (const m of members) await m.waitHealthy();
      return { members, endpoints: members.map((m) => m.endpoint), destroy };
    } catch (err) {
      lastError = err;
      await destroy();
    }
  }
  throw lastError;
}

/** Where a kept cluster's members listen, in `<dir>/cluster.json`, so that they come back on the same ports. */
interface KeptCluster {
  token: string;
  members: Array<{ name: string; clientPort: number; peerPort: number }>;
}

/**
 * A cluster of `size` members kept in `dir` (`<dir>/<name>/data`, logs beside): the first
 * start picks free ports and records them in `<dir>/cluster.json`; later starts bring the
 * same members back on those ports with their data (etcd ignores the initial-cluster flags
 * once a member has data). `stop()` keeps everything.
 */
export async function startKeptEtcdCluster(
  dir: string,
  size: number,
  options: LocalEtcdOptions = {},
): Promise<{ members: LocalEtcd[]; endpoints: string[]; stop(): Promise<void> }> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, "cluster.json");
  let kept: KeptCluster;
  if (existsSync(file)) {
    kept = JSON.parse(readFileSync(file, "utf8")) as KeptCluster;
  } else {
    const ports = new Set<number>();
    while (ports.size < size * 2) ports.add(await freePort());
    const [...free] = ports;
    kept = {
      token: `karmada-${Date.now().toString(36)}`,
      members: Array.from({ length: size }, (_, i) => ({
        name: `etcd-${i + 1}`,
        clientPort: free[2 * i]!,
        peerPort: free[2 * i + 1]!,
      })),
    };
    writeFileSync(file, `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600 });
  }
  const members = kept.members.map((m) => {
    const memberDir = join(dir, m.name);
    mkdirSync(memberDir, { recursive: true, mode: 0o700 });
    return new LocalEtcdProcess(options, memberDir, m.clientPort, m.peerPort);
  });
  const initialCluster = members.map((m, i) => `${kept.members[i]!.name}=${m.peerUrl}`).join(",");
  for (const [i, m] of members.entries())
    m.joinCluster({ name: kept.members[i]!.name, initialCluster, token: kept.token });
  const stop = async (): Promise<void> => {
    for (const m of members) await m.stop();
  };
  try {
    for (const m of members) m.spawn();
    for (const m of members) await m.waitHealthy();
  } catch (err) {
    await stop();
    throw err;
  }
  return { members, endpoints: members.map((m) => m.endpoint), stop };
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
