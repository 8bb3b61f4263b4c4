/**
 * `karmadactl token create|list|delete`: bootstrap tokens for registering Pull clusters, as
 * upstream's: a Secret `kube-system/bootstrap-token-<id>` per token (`<id>.<secret>`,
 * lower-case letters and digits), `--ttl` (24h; 0 never expires), `--usages`
 * (signing,authentication), `--groups` (system:bootstrappers:karmada:default-cluster-token),
 * `--description`; `create --print-register-command` prints the `karmadactl register`
 * line for this control plane (its CA pinned by public-key hash).
 */

import { randomInt } from "node:crypto";
import {
  BOOTSTRAP_GROUP_PATTERN,
  BOOTSTRAP_TOKEN_NAMESPACE,
  BOOTSTRAP_TOKEN_TYPE,
  BOOTSTRAP_USAGES,
  bootstrapSecretName,
  KARMADA_BOOTSTRAP_GROUP,
  readBootstrapToken,
  TOKEN_ID_PATTERN,
  TOKEN_PATTERN,
} from "../../api/bootstrap-token.ts";
import type { StoredObject } from "../../api/meta.ts";
import { rfc3339 } from "../../api/meta.ts";
import { type Client, RESOURCES } from "../../client/client.ts";
import { pemOf } from "../../client/http.ts";
import { errorMessage, isNotFound } from "../../machinery/errors.ts";
import { pemBlocks, publicKeyPin } from "../../pki/x509.ts";
import { type ClientFactory, CommandError, type CommandIO, tabwriterTable } from "../io.ts";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
const ID_PATTERN_TEXT = "\\\\A([a-z0-9]{6})\\\\z";
const TOKEN_PATTERN_TEXT = "\\\\A([a-z0-9]{6})\\\\.([a-z0-9]{16})\\\\z";

function randomString(length: number): string {
  return Array.from({ length }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
}

export function generateBootstrapToken(): string {
  return `${randomString(6)}.${randomString(16)}`;
}

export interface TokenCreateOptions {
  ttlMs: number;
  usages: string[];
  groups: string[];
  description?: string;
  now?: number;
}

export const DEFAULT_TOKEN_OPTIONS: TokenCreateOptions = {
  ttlMs: 24 * 3_600_000,
  usages: [...BOOTSTRAP_USAGES].reverse(),
  groups: [KARMADA_BOOTSTRAP_GROUP],
};

/** Checks usages and groups as `kubeadm token create` does (upstream karmadactl stores whatever it is given). */
function validateToken(opts: TokenCreateOptions): void {
  const badUsage = opts.usages.find((u) => !(BOOTSTRAP_USAGES as readonly string[]).includes(u));
  if (badUsage) {
    throw new CommandError(
      `invalid bootstrap token usage string: ${badUsage}, valid options: ${BOOTSTRAP_USAGES.join(",")}`,
    );
  }
  const badGroup = opts.groups.find((g) => !BOOTSTRAP_GROUP_PATTERN.test(g));
  if (badGroup) {
    throw new CommandError(
      `--groups: ${JSON.stringify(badGroup)} must match "\\\\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\\\z"`,
    );
  }
  if (opts.ttlMs < 0) throw new CommandError("--ttl must not be negative");
}

/** Creates a bootstrap token in the control plane; returns it (`<id>.<secret>`). */
export async function createBootstrapToken(client: Client, opts: TokenCreateOptions): Promise<string> {
  validateToken(opts);
  const token = generateBootstrapToken();
  const [id, secret] = token.split(".") as [string, string];
  try {
    await client.get(RESOURCES.secrets, BOOTSTRAP_TOKEN_NAMESPACE, bootstrapSecretName(id));
    throw new CommandError(`a token with id "${id}" already exists`);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const data: Record<string, string> = { "token-id": id, "token-secret": secret };
  if (opts.description) data.description = opts.description;
  if (opts.ttlMs > 0) data.expiration = rfc3339((opts.now ?? Date.now()) + opts.ttlMs);
  for (const usage of opts.usages) data[`usage-bootstrap-${usage}`] = "true";
  if (opts.groups.length > 0) data["auth-extra-groups"] = opts.groups.join(",");
  await client.create(RESOURCES.secrets, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: bootstrapSecretName(id), namespace: BOOTSTRAP_TOKEN_NAMESPACE },
    type: BOOTSTRAP_TOKEN_TYPE,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")])),
  });
  return token;
}

/** The `karmadactl register ...` line for a control plane reached at `server` with CA bundle `caPem`. */
export function registerCommand(server: string, caPem: string, token: string): string {
  const pins = pemBlocks(caPem).map((c) => publicKeyPin(c));
  return `karmadactl register ${server.replaceAll("https://", "")} --token ${token} --discovery-token-ca-cert-hash ${pins.join(",")}`;
}

export async function runTokenCreate(
  opts: TokenCreateOptions & { printRegisterCommand: boolean; kubeconfig: string; context?: string },
  io: CommandIO,
  clients: ClientFactory,
): Promise<void> {
  validateToken(opts);
  // Read the kubeconfig before writing anything, so a missing CA fails with no token left behind.
  const cluster = opts.printRegisterCommand
    ? await clients.cluster(opts.kubeconfig, opts.context)
    : undefined;
  const karmada = cluster?.client ?? (await clients.controlPlane());
  if (cluster && !cluster.caData) {
    throw new CommandError("failed to get register command, err: no CA certificates found in kubeconfig");
  }
  const token = await createBootstrapToken(karmada, opts);
  if (!cluster) {
    io.stdout.write(`${token}\n`);
    return;
  }
  io.stdout.write(`${registerCommand(cluster.server, pemOf(cluster.caData!), token)}\n`);
}

/** Go's ShortHumanDuration, as `token list` prints TTLs. */
export function shortHumanDuration(ms: number): string {
  // Go's integer division truncates toward zero.
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.floor(hours / 24)}d`;
  return `${Math.floor(hours / 24 / 365)}y`;
}

export async function runTokenList(io: CommandIO, clients: ClientFactory, now = Date.now()): Promise<void> {
  const karmada = await clients.controlPlane();
  let secrets: StoredObject[];
  try {
    secrets = (
      await karmada.list(RESOURCES.secrets, BOOTSTRAP_TOKEN_NAMESPACE, {
        fieldSelector: `type=${BOOTSTRAP_TOKEN_TYPE}`,
      })
    ).items;
  } catch (err) {
    throw new CommandError(`failed to list bootstrap tokens, err: ${(err as Error).message}`);
  }
  const rows: string[][] = [["TOKEN", "TTL", "EXPIRES", "USAGES", "DESCRIPTION", "EXTRA GROUPS"]];
  for (const secret of secrets) {
    const t = readBootstrapToken(secret);
    if (!t) {
      io.stderr.write(
        `bootstrap token name is not of the form 'bootstrap-token-(token-id)'. Actual: "${secret.metadata.name}".`,
      );
      continue;
    }
    const extra = Buffer.from(
      String((secret.data as Record<string, string>)["auth-extra-groups"] ?? ""),
      "base64",
    ).toString();
    rows.push([
      `${t.id}.${t.secret}`,
      t.expiration === undefined ? "<forever>" : shortHumanDuration(t.expiration - now),
      t.expiration === undefined ? "<never>" : rfc3339(t.expiration),
      t.usages.length ? [...t.usages].sort().join(",") : "<none>",
      t.description ?? "<none>",
      extra || "<none>",
    ]);
  }
  if (rows.length > 1) io.stdout.write(tabwriterTable(rows));
}

export async function runTokenDelete(args: string[], io: CommandIO, clients: ClientFactory): Promise<void> {
  if (args.length === 0) {
    throw new CommandError(
      `missing subcommand; 'token delete' is missing token of form "${ID_PATTERN_TEXT}"`,
    );
  }
  const karmada = await clients.controlPlane();
  for (const arg of args) {
    let id: string;
    if (TOKEN_ID_PATTERN.test(arg)) id = arg;
    else {
      const m = TOKEN_PATTERN.exec(arg);
      if (!m) {
        throw new CommandError(
          `given token didn't match pattern "${ID_PATTERN_TEXT}" or "${TOKEN_PATTERN_TEXT}"`,
        );
      }
      id = m[1]!;
    }
    const name = bootstrapSecretName(id);
    try {
      await karmada.delete(RESOURCES.secrets, BOOTSTRAP_TOKEN_NAMESPACE, name);
    } catch (err) {
      throw new CommandError(`failed to delete secret "${name}", err: ${errorMessage(err)}`);
    }
    io.stdout.write(`bootstrap token "${id}" deleted\n`);
  }
}
