/**
 * ResourceInterpreterWebhookConfigurations as the webhook interpreter reads them: every webhook
 * of every configuration, each with the rules that say which operations on which kinds it
 * answers, and the one webhook that answers an operation when several match.
 *
 * Upstream facts (karmada `pkg/resourceinterpreter/customized/webhook/configmanager`,
 * `customized.go`, `pkg/util/interpreter/matcher.go`):
 * - a webhook is identified by `<configuration name>/<webhook name>`;
 * - a rule matches when its operations hold the operation or `*`, and its apiGroups,
 *   apiVersions and kinds each hold the object's group, version and kind or `*`; a webhook
 *   matches when any of its rules does;
 * - of the matching webhooks, the one first by that identifier (plain string order) is called,
 *   and only that one.
 */
import { isObject, parseApiVersion, type StoredObject } from "../../api/meta.ts";
import type { InterpreterOperation } from "../types.ts";

/** RuleWithOperations. */
export interface WebhookRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  kinds: string[];
}

/** admissionregistration/v1 ServiceReference. */
export interface WebhookService {
  namespace: string;
  name: string;
  path?: string;
  /** Default 443. */
  port?: number;
}

/** admissionregistration/v1 WebhookClientConfig. */
export interface WebhookClientConfig {
  url?: string;
  service?: WebhookService;
  /** Base64 of PEM CA certificates (a Go []byte on the wire). */
  caBundle?: string;
}

/** One webhook of one ResourceInterpreterWebhookConfiguration. */
export interface InterpreterHook {
  /** `<configuration>/<webhook>`: names the webhook in errors and orders the webhooks. */
  uid: string;
  configuration: string;
  name: string;
  clientConfig: WebhookClientConfig;
  rules: WebhookRule[];
  /** Upstream documents 1–30 and a default of 10. */
  timeoutSeconds?: number;
  interpreterContextVersions: string[];
}

export const WILDCARD = "*";

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

function readRule(raw: unknown): WebhookRule {
  const r = isObject(raw) ? raw : {};
  return {
    operations: strings(r.operations),
    apiGroups: strings(r.apiGroups),
    apiVersions: strings(r.apiVersions),
    kinds: strings(r.kinds),
  };
}

function readClientConfig(raw: unknown): WebhookClientConfig {
  const cc = isObject(raw) ? raw : {};
  const out: WebhookClientConfig = {};
  if (typeof cc.url === "string") out.url = cc.url;
  if (typeof cc.caBundle === "string" && cc.caBundle !== "") out.caBundle = cc.caBundle;
  if (isObject(cc.service)) {
    const svc = cc.service;
    const service: WebhookService = {
      namespace: typeof svc.namespace === "string" ? svc.namespace : "",
      name: typeof svc.name === "string" ? svc.name : "",
    };
    if (typeof svc.path === "string") service.path = svc.path;
    if (typeof svc.port === "number") service.port = svc.port;
    out.service = service;
  }
  return out;
}

function readHook(configuration: string, raw: unknown): InterpreterHook {
  const h = isObject(raw) ? raw : {};
  const name = typeof h.name === "string" ? h.name : "";
  const hook: InterpreterHook = {
    uid: `${configuration}/${name}`,
    configuration,
    name,
    clientConfig: readClientConfig(h.clientConfig),
    rules: Array.isArray(h.rules) ? h.rules.map(readRule) : [],
    interpreterContextVersions: strings(h.interpreterContextVersions),
  };
  if (typeof h.timeoutSeconds === "number") hook.timeoutSeconds = h.timeoutSeconds;
  return hook;
}

/** Every webhook of `configurations`: configurations by name, webhooks in their listed order. */
export function hooksOf(configurations: readonly StoredObject[]): InterpreterHook[] {
  const sorted = [...configurations].sort((a, b) =>
    compareStrings(a.metadata.name ?? "", b.metadata.name ?? ""),
  );
  return sorted.flatMap((c) => {
    const webhooks = (c as { webhooks?: unknown }).webhooks;
    return Array.isArray(webhooks) ? webhooks.map((w) => readHook(c.metadata.name ?? "", w)) : [];
  });
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const exactOrWildcard = (value: string, items: readonly string[]): boolean =>
  items.some((item) => item === WILDCARD || item === value);

export interface ObjectKind {
  group: string;
  version: string;
  kind: string;
}

export function objectKindOf(apiVersion: string, kind: string): ObjectKind {
  return { ...parseApiVersion(apiVersion), kind };
}

export function ruleMatches(rule: WebhookRule, operation: InterpreterOperation, gvk: ObjectKind): boolean {
  return (
    exactOrWildcard(operation, rule.operations) &&
    exactOrWildcard(gvk.group, rule.apiGroups) &&
    exactOrWildcard(gvk.version, rule.apiVersions) &&
    exactOrWildcard(gvk.kind, rule.kinds)
  );
}

/** The webhook that answers `operation` for the kind: of those whose rules match, the first by uid. */
export function hookFor(
  hooks: readonly InterpreterHook[],
  operation: InterpreterOperation,
  gvk: ObjectKind,
): InterpreterHook | undefined {
  let first: InterpreterHook | undefined;
  for (const hook of hooks) {
    if (!hook.rules.some((rule) => ruleMatches(rule, operation, gvk))) continue;
    // Strictly less: on equal uids the earlier one stays, as upstream's stable sort keeps it.
    if (first === undefined || hook.uid < first.uid) first = hook;
  }
  return first;
}
