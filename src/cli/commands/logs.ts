/**
 * `karmadactl logs <pod> -C <cluster>`: a pod's log in a member cluster, read through the
 * control plane's cluster proxy as upstream's (its FactoryForMemberCluster then kubectl's
 * logs): the member sees the caller, so its RBAC (`get` on `pods/log`) decides. Container
 * defaulting and the flags are kubectl's.
 */
import { isObject } from "../../api/meta.ts";
import { RESOURCES } from "../../client/client.ts";
import type { HttpClient } from "../../client/http.ts";
import { errorMessage, fromStatus } from "../../machinery/errors.ts";
import { type ClientFactory, CommandError, type CommandIO } from "../io.ts";

export interface LogsOptions {
  /** `POD` or `pod/POD`. */
  target: string;
  cluster?: string;
  namespace: string;
  container?: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
  sinceTime?: string;
}

const DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container";

function podName(target: string): string {
  const slash = target.indexOf("/");
  if (slash < 0) return target;
  const kind = target.slice(0, slash);
  if (kind !== "pod" && kind !== "pods" && kind !== "po") {
    throw new CommandError(`cannot get the logs of ${kind}: only pods are supported (pod/NAME or NAME)`);
  }
  return target.slice(slash + 1);
}

/** kubectl's choice when no `-c`: the default-container annotation, else the first, said on stderr. */
function chooseContainer(pod: Record<string, unknown>, io: CommandIO): string | undefined {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const names = (key: string) =>
    ((spec[key] as Array<{ name: string }> | undefined) ?? []).map((c) => c.name);
  const containers = names("containers");
  const init = names("initContainers");
  const ephemeral = names("ephemeralContainers");
  const meta = pod.metadata as { annotations?: Record<string, string> } | undefined;
  const annotated = meta?.annotations?.[DEFAULT_CONTAINER_ANNOTATION];
  if (annotated && [...containers, ...init, ...ephemeral].includes(annotated)) return annotated;
  const first = containers[0];
  if (first && containers.length + init.length + ephemeral.length > 1) {
    const all = [...containers, ...init.map((n) => `${n} (init)`), ...ephemeral.map((n) => `${n} (ephem)`)];
    io.stderr.write(`Defaulted container "${first}" out of: ${all.join(", ")}\n`);
  }
  return first;
}

function logQuery(opts: LogsOptions, container: string | undefined): URLSearchParams {
  const q = new URLSearchParams();
  if (container) q.set("container", container);
  if (opts.follow) q.set("follow", "true");
  if (opts.previous) q.set("previous", "true");
  if (opts.timestamps) q.set("timestamps", "true");
  if (opts.tailLines !== undefined && opts.tailLines >= 0) q.set("tailLines", String(opts.tailLines));
  if (opts.limitBytes !== undefined) q.set("limitBytes", String(opts.limitBytes));
  if (opts.sinceSeconds !== undefined) q.set("sinceSeconds", String(opts.sinceSeconds));
  if (opts.sinceTime) q.set("sinceTime", opts.sinceTime);
  return q;
}

export async function runLogs(opts: LogsOptions, io: CommandIO, clients: ClientFactory): Promise<void> {
  if (!opts.cluster) throw new CommandError("must specify a cluster");
  const karmada = await clients.controlPlane();
  // As upstream: the cluster must be one Karmada knows.
  await karmada.get(RESOURCES.clusters, undefined, opts.cluster);
  const member = (await clients.memberCluster(opts.cluster)) as HttpClient;
  const name = podName(opts.target);
  const pod = await member.get(RESOURCES.pods, opts.namespace, name);
  let container = opts.container;
  if (container === undefined) container = chooseContainer(pod, io);
  const path = `/api/v1/namespaces/${encodeURIComponent(opts.namespace)}/pods/${encodeURIComponent(name)}/log`;
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once("SIGINT", stop);
  try {
    const res = await member.open(
      "GET",
      `${path}?${logQuery(opts, container)}`,
      { Accept: "*/*" },
      undefined,
      abort.signal,
    );
    if ((res.statusCode ?? 500) >= 300) {
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Plain text from the member: the message as it is.
      }
      throw fromStatus(body, res.statusCode ?? 500);
    }
    for await (const chunk of res) io.stdout.write((chunk as Buffer).toString("utf8"));
  } catch (err) {
    if (abort.signal.aborted) return;
    if ((err as { status?: unknown }).status) throw err;
    throw new CommandError(
      `reading the log of pod ${name} in cluster(${opts.cluster}): ${errorMessage(err)}`,
    );
  } finally {
    process.off("SIGINT", stop);
  }
}
