/**
 * The TCP load balancer in front of `karmada up --ha`'s API servers, as a Service or a cloud
 * load balancer fronts kube-apiservers: TLS passes through untouched (clients verify the API
 * server's own certificate and present their client certificates to it), each connection goes
 * to the next backend in turn, and a backend that refuses the connection is skipped for that
 * connection and the next one tried, so a lost node costs no client more than a reconnect.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface TcpBalancer {
  port: number;
  close(): Promise<void>;
}

export async function startTcpBalancer(opts: {
  host: string;
  port: number;
  /** Backend ports on `host`, asked for on each connection (so they may change). */
  backends: () => readonly number[];
}): Promise<TcpBalancer> {
  let next = 0;
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.once("close", () => open.delete(client));
    client.pause();
    const ports = opts.backends();
    const first = next++;
    const attempt = (tried: number): void => {
      if (tried >= ports.length) {
        client.destroy();
        return;
      }
      const backend = connect({ host: opts.host, port: ports[(first + tried) % ports.length]! });
      const refused = (): void => attempt(tried + 1);
      backend.once("error", refused);
      backend.once("connect", () => {
        backend.off("error", refused);
        open.add(backend);
        backend.once("close", () => open.delete(backend));
        backend.on("error", () => client.destroy());
        client.on("error", () => backend.destroy());
        client.pipe(backend);
        backend.pipe(client);
        client.resume();
      });
    };
    client.on("error", () => undefined);
    attempt(0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : opts.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
