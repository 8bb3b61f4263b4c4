// The benchmark's HTTP clients, in their own process (as a load generator like wrk would
// be) so that they share neither the API server's event loop nor its process: keep-alive
// POSTs from N concurrent clients, and watchers that count delivered events (the server
// writes one JSON event per line). Plain JavaScript: the child does not inherit the tsx
// loader. Driven over IPC by bench/load.ts (LoadClient); the first message says where to go.
import { Agent, request as httpRequest } from "node:http";
import { request as httpsRequest, Agent as TlsAgent } from "node:https";

let host;
let port;
let agent;
/** HTTPS settings (CA, client certificate and key) when the server is TLS. */
let tls;
let request = httpRequest;
let concurrency = 1;
/** @type {{ counts: number[], requests: import("node:http").ClientRequest[], failure?: string, waiter?: () => void }} */
let watch = { counts: [], requests: [] };

function post(path, body) {
  return new Promise((resolve) => {
    const req = request(
      {
        host,
        port,
        method: "POST",
        path,
        agent,
        ...tls,
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json",
          "Content-Length": Buffer.byteLength(body),
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        res.on("end", () => resolve(status));
        res.on("error", () => resolve(0));
      },
    );
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

async function create({ path, bodies }) {
  let next = 0;
  let errors = 0;
  let lastStatus = 0;
  const start = performance.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= bodies.length) return;
      const status = await post(path, bodies[i]);
      if (status !== 201) {
        errors++;
        lastStatus = status;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, bodies.length) }, worker));
  return { ms: performance.now() - start, errors, lastStatus };
}

function openWatch({ path, watchers }) {
  watch = { counts: new Array(watchers).fill(0), requests: [] };
  const current = watch;
  const opened = Array.from(
    { length: watchers },
    (_, w) =>
      new Promise((resolve, reject) => {
        const req = request({ host, port, path, agent: false, ...tls }, (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            reject(new Error(`watch answered ${res.statusCode}`));
            return;
          }
          res.on("data", (chunk) => {
            let lines = 0;
            for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
            current.counts[w] += lines;
            current.waiter?.();
          });
          res.on("error", (err) => {
            current.failure ??= err.message;
            current.waiter?.();
          });
          resolve();
        });
        req.on("error", (err) => {
          current.failure ??= err.message;
          reject(err);
        });
        req.end();
        current.requests.push(req);
      }),
  );
  return Promise.all(opened).then(() => ({ watchers }));
}

function awaitWatch({ events, timeoutMs }) {
  const current = watch;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      current.waiter = undefined;
      resolve({
        error: `watchers stalled: the slowest has ${Math.min(...current.counts)} of ${events} events`,
      });
    }, timeoutMs);
    current.waiter = () => {
      if (current.failure) {
        clearTimeout(timer);
        current.waiter = undefined;
        resolve({ error: current.failure });
      } else if (current.counts.every((c) => c >= events)) {
        clearTimeout(timer);
        current.waiter = undefined;
        resolve({ doneAt: performance.timeOrigin + performance.now() });
      }
    };
    current.waiter();
  });
}

function closeWatch() {
  for (const r of watch.requests) r.destroy();
  watch = { counts: [], requests: [] };
  return {};
}

function init(msg) {
  host = msg.host;
  port = msg.port;
  concurrency = msg.concurrency;
  tls = msg.tls;
  request = tls ? httpsRequest : httpRequest;
  const AgentClass = tls ? TlsAgent : Agent;
  agent = new AgentClass({ keepAlive: true, maxSockets: msg.concurrency, maxFreeSockets: msg.concurrency });
  return {};
}

const ops = { init, create, openWatch, awaitWatch, closeWatch };

process.on("message", async (msg) => {
  try {
    const result = await ops[msg.op](msg);
    process.send({ id: msg.id, result });
  } catch (err) {
    process.send({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
});
process.on("disconnect", () => process.exit(0));
