/**
 * Health endpoints as Kubernetes components serve them (k8s.io/apiserver's healthz package),
 * shared by the API server and every other component's probe server:
 * - `/healthz`, `/livez`, `/readyz`: 200 `ok` when every check passes; otherwise 500 with one
 *   line per check (`[+]name ok`, `[-]name failed: reason withheld`) and `<endpoint> check failed`;
 * - `?verbose` lists the checks when they pass too, ending `<endpoint> check passed`;
 * - `?exclude=name` (repeatable) leaves checks out, warning about names that match none;
 * - `/<endpoint>/<name>` runs one check: `ok`, or 500 `internal server error: <reason>`; an
 *   unknown name is 404.
 * A check's reason is only shown on its own path: the list withholds it, as upstream does.
 */

export interface HealthCheck {
  name: string;
  /** Undefined when healthy, else why not. */
  check(): string | undefined | Promise<string | undefined>;
}

export type HealthEndpoint = "healthz" | "livez" | "readyz";

export interface HealthAnswer {
  status: number;
  text: string;
}

/** `ping`: the process answers. Every endpoint has it. */
export const PING: HealthCheck = { name: "ping", check: () => undefined };

async function run(c: HealthCheck): Promise<string | undefined> {
  try {
    return await c.check();
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * The answer to `/<endpoint>` (`check` undefined) or `/<endpoint>/<check>`, for a GET with
 * `query`.
 */
export async function healthAnswer(
  endpoint: HealthEndpoint,
  check: string | undefined,
  query: URLSearchParams,
  checks: readonly HealthCheck[],
): Promise<HealthAnswer> {
  if (check !== undefined && check !== "") {
    const one = checks.find((c) => c.name === check);
    if (!one) return { status: 404, text: "404 page not found\n" };
    const reason = await run(one);
    return reason === undefined
      ? { status: 200, text: "ok" }
      : { status: 500, text: `internal server error: ${reason}\n` };
  }
  const excluded = new Set(
    query
      .getAll("exclude")
      .flatMap((e) => e.split(","))
      .filter(Boolean),
  );
  const selected = checks.filter((c) => !excluded.has(c.name));
  const unmatched = [...excluded].filter((name) => !checks.some((c) => c.name === name));
  const results = await Promise.all(selected.map(async (c) => ({ name: c.name, reason: await run(c) })));
  const failed = results.some((r) => r.reason !== undefined);
  const verbose = query.has("verbose");
  if (!failed && !verbose) return { status: 200, text: "ok" };
  const lines = results.map((r) =>
    r.reason === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: reason withheld`,
  );
  for (const name of unmatched)
    lines.push(`warn: some health checks cannot be excluded: no matches for "${name}"`);
  lines.push(`${endpoint} check ${failed ? "failed" : "passed"}`);
  return { status: failed ? 500 : 200, text: `${lines.join("\n")}\n` };
}

/** `/healthz`, `/livez/ping`, ...: the endpoint and the check named, or undefined for other paths. */
export function healthPath(
  path: string,
): { endpoint: HealthEndpoint; check: string | undefined } | undefined {
  const m = /^\/(healthz|livez|readyz)(?:\/(.*))?$/.exec(path);
  if (!m) return undefined;
  return { endpoint: m[1] as HealthEndpoint, check: m[2] };
}
