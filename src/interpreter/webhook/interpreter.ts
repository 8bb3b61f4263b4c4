/**
 * The interpreter source backed by ResourceInterpreterWebhookConfigurations: for an operation
 * on a kind, the webhook whose rules match (the first by `<configuration>/<webhook>`) is sent a
 * ResourceInterpreterContext over HTTPS and its answer is used.
 *
 * As upstream, interpreter webhooks have no failurePolicy: a webhook that cannot be reached,
 * times out, answers badly or answers `successful: false` fails the operation (the method
 * throws a WebhookCallError); nothing falls back to another interpreter.
 */
import { randomUUID } from "node:crypto";
import https from "node:https";

import type { KubeObject, StoredObject } from "../../api/meta.ts";
import type { AggregatedStatusItem, ReplicaRequirements } from "../../karmada/types.ts";
import type { DependentObjectReference, Health, InterpreterOperation, InterpreterSource } from "../types.ts";
import { caCertificates, postJson, timeoutSecondsOf, webhookUrl } from "./call.ts";
import {
  applyResponsePatch,
  contextVersionFor,
  type InterpreterAttributes,
  type InterpreterResponse,
  InvalidResponseError,
  interpreterContextRequest,
  UnsuccessfulResponseError,
  verifyInterpreterResponse,
} from "./context.ts";
import { hookFor, hooksOf, type InterpreterHook, objectKindOf } from "./hooks.ts";

/** How much of an unexpected answer's body an error quotes. */
const QUOTED_BODY_CHARS = 300;

/** A webhook call failed; the message names the webhook, its URL, the object and the cause. */
export class WebhookCallError extends Error {
  /** `<configuration>/<webhook>`. */
  readonly webhook: string;
  readonly url: string | undefined;
  readonly operation: InterpreterOperation;
  constructor(webhook: string, url: string | undefined, operation: InterpreterOperation, message: string) {
    super(message);
    this.name = "WebhookCallError";
    this.webhook = webhook;
    this.url = url;
    this.operation = operation;
  }
}

export interface WebhookInterpreterOptions {
  /** Request uids (default: random UUIDs). */
  newUid?: () => string;
}

function describeObject(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? "";
  return `${obj.apiVersion ?? ""} ${obj.kind ?? ""} ${ns ? `${ns}/${name}` : name}`;
}

function quote(body: string): string {
  const text = body.trim();
  return text.length > QUOTED_BODY_CHARS ? `${text.slice(0, QUOTED_BODY_CHARS)}…` : text;
}

/** The message of a non-2xx answer: a Status's message when it is one, else the body. */
function describeHttpAnswer(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { kind?: unknown; message?: unknown };
    if (parsed?.kind === "Status" && typeof parsed.message === "string") {
      return `answered HTTP ${status}: ${parsed.message}`;
    }
  } catch {
    // Not JSON: quote it as text.
  }
  return `answered HTTP ${status}${body.trim() ? `: ${quote(body)}` : ""}`;
}

export class WebhookInterpreter implements InterpreterSource {
  readonly name = "webhook";
  #hooks: readonly InterpreterHook[] = [];
  readonly #newUid: () => string;
  /** Keep-alive connections, pooled per host and CA. */
  readonly #agent = new https.Agent({ keepAlive: true });

  constructor(options: WebhookInterpreterOptions = {}) {
    this.#newUid = options.newUid ?? randomUUID;
  }

  /** Replaces the configurations (all of them, as an informer lists them); the next call uses them. */
  setConfigurations(objs: readonly StoredObject[]): void {
    this.#hooks = hooksOf(objs);
  }

  /** Closes pooled connections. */
  close(): void {
    this.#agent.destroy();
  }

  handles(operation: InterpreterOperation, apiVersion: string, kind: string): boolean {
    // No controller asks for components yet, and InterpreterSource has no method for them.
    if (operation === "InterpretComponent") return false;
    return hookFor(this.#hooks, operation, objectKindOf(apiVersion, kind)) !== undefined;
  }

  async getReplicas(obj: KubeObject): Promise<{ replicas: number; requirements?: ReplicaRequirements }> {
    return this.#call({ operation: "InterpretReplica", object: obj }, (res) =>
      res.replicaRequirements
        ? { replicas: res.replicas!, requirements: res.replicaRequirements }
        : { replicas: res.replicas! },
    );
  }

  async reviseReplica(obj: KubeObject, replicas: number): Promise<KubeObject> {
    return this.#call({ operation: "ReviseReplica", object: obj, replicas }, (res) =>
      applyResponsePatch(obj, res.patch),
    );
  }

  async retain(desired: KubeObject, observed: KubeObject): Promise<KubeObject> {
    return this.#call({ operation: "Retain", object: desired, observedObject: observed }, (res) =>
      applyResponsePatch(desired, res.patch),
    );
  }

  async reflectStatus(obj: KubeObject): Promise<Record<string, unknown> | null> {
    return this.#call({ operation: "InterpretStatus", object: obj }, (res) => res.rawStatus!);
  }

  async interpretHealth(obj: KubeObject): Promise<Health> {
    return this.#call({ operation: "InterpretHealth", object: obj }, (res) =>
      res.healthy ? "Healthy" : "Unhealthy",
    );
  }

  async aggregateStatus(template: KubeObject, items: readonly AggregatedStatusItem[]): Promise<KubeObject> {
    return this.#call({ operation: "AggregateStatus", object: template, aggregatedStatus: items }, (res) =>
      applyResponsePatch(template, res.patch),
    );
  }

  async getDependencies(obj: KubeObject): Promise<DependentObjectReference[]> {
    return this.#call({ operation: "InterpretDependency", object: obj }, (res) => res.dependencies ?? []);
  }

  /**
   * Calls the webhook that handles `attributes` and returns what `use` makes of its verified
   * answer. Every failure, `use`'s included, becomes a WebhookCallError.
   */
  async #call<T>(attributes: InterpreterAttributes, use: (res: InterpreterResponse) => T): Promise<T> {
    const { operation, object } = attributes;
    const hook = hookFor(this.#hooks, operation, objectKindOf(object.apiVersion ?? "", object.kind ?? ""));
    if (!hook) {
      throw new WebhookCallError(
        "",
        undefined,
        operation,
        `no resource interpreter webhook handles ${operation} for ${describeObject(object)}`,
      );
    }
    let url: URL | undefined;
    const fail = (message: string): WebhookCallError =>
      new WebhookCallError(
        hook.uid,
        url?.href,
        operation,
        `resource interpreter webhook "${hook.uid}"${url ? ` at ${url.href}` : ""} failed ${operation} for ${describeObject(object)}: ${message}`,
      );
    let uid: string;
    let body: string;
    let ca: string | undefined;
    let timeoutSeconds: number;
    try {
      url = webhookUrl(hook.clientConfig);
      ca = caCertificates(hook.clientConfig.caBundle);
      timeoutSeconds = timeoutSecondsOf(hook);
      contextVersionFor(hook.interpreterContextVersions);
      uid = this.#newUid();
      body = JSON.stringify(interpreterContextRequest(uid, attributes));
    } catch (err) {
      throw fail((err as Error).message);
    }
    let answer: { status: number; body: string };
    try {
      answer = await postJson(url, body, { ca, timeoutSeconds, agent: this.#agent });
    } catch (err) {
      throw fail((err as Error).message);
    }
    if (answer.status < 200 || answer.status > 299)
      throw fail(describeHttpAnswer(answer.status, answer.body));
    let decoded: unknown;
    try {
      decoded = JSON.parse(answer.body);
    } catch {
      throw fail(`answered with a body that is not JSON: ${quote(answer.body)}`);
    }
    try {
      return use(verifyInterpreterResponse(decoded, uid, operation));
    } catch (err) {
      if (err instanceof UnsuccessfulResponseError) {
        const code = err.code !== undefined ? ` (code ${err.code})` : "";
        throw fail(`the webhook answered successful: false${code}: ${err.message || "(no message)"}`);
      }
      if (err instanceof InvalidResponseError) throw fail(`invalid answer: ${err.message}`);
      throw err;
    }
  }
}
