/**
 * RBAC PolicyRules as pure functions: does a rule allow a request, and does a set of rules
 * cover another (the privilege-escalation check). Semantics as kube-apiserver's RBAC:
 * `*` wildcards for verbs, groups, resources and URLs; `<resource>/<subresource>` and
 * `*` + `/<subresource>` (any resource's subresource); resourceNames restrict by name (a request without a name is not
 * matched by a rule with names); nonResourceURLs exact or with a trailing `*`.
 */
import type { UserInfo } from "../context.ts";

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Decision {
  allowed: boolean;
  reason: string;
}

/** What a request asks to do, for authorization. */
export type Attributes = ResourceAttributes | NonResourceAttributes;

export interface ResourceAttributes {
  kind: "resource";
  user: UserInfo;
  verb: string;
  apiGroup: string;
  /** The API version (only for messages and reviews). */
  apiVersion?: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export interface NonResourceAttributes {
  kind: "nonresource";
  user: UserInfo;
  verb: string;
  path: string;
}

const has = (list: readonly string[] | undefined, value: string): boolean =>
  list !== undefined && (list.includes("*") || list.includes(value));

function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === "*" || r === combined) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

export function nonResourceUrlMatches(pattern: string, path: string): boolean {
  if (pattern === "*" || pattern === path) return true;
  return pattern.endsWith("*") && path.startsWith(pattern.replace(/\*+$/, ""));
}

/** Whether one rule allows the request. */
export function ruleAllows(rule: PolicyRule, a: Attributes): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (a.kind === "nonresource")
    return (rule.nonResourceURLs ?? []).some((p) => nonResourceUrlMatches(p, a.path));
  if (!has(rule.apiGroups, a.apiGroup)) return false;
  if (!resourceMatches(rule, a.resource, a.subresource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}

/** One verb on one resource (and name), or one verb on one URL: what `covers` checks rule by rule. */
function atomicRules(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const verb of rule.verbs) {
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        const names = rule.resourceNames?.length ? rule.resourceNames : [undefined];
        for (const name of names) {
          out.push({
            verbs: [verb],
            apiGroups: [group],
            resources: [resource],
            ...(name !== undefined ? { resourceNames: [name] } : {}),
          });
        }
      }
    }
    for (const url of rule.nonResourceURLs ?? []) out.push({ verbs: [verb], nonResourceURLs: [url] });
  }
  return out;
}

function coversResource(owner: readonly string[], resource: string): boolean {
  if (owner.includes("*") || owner.includes(resource)) return true;
  const slash = resource.indexOf("/");
  return slash >= 0 && owner.includes(`*${resource.slice(slash)}`);
}

function coversUrl(owner: readonly string[], url: string): boolean {
  return owner.some((p) => p === url || nonResourceUrlMatches(p, url));
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  if (!sub.verbs.every((v) => has(owner.verbs, v))) return false;
  if (sub.nonResourceURLs?.length) {
    return sub.nonResourceURLs.every((u) => coversUrl(owner.nonResourceURLs ?? [], u));
  }
  if (!(sub.apiGroups ?? []).every((g) => has(owner.apiGroups, g))) return false;
  if (!(sub.resources ?? []).every((r) => coversResource(owner.resources ?? [], r))) return false;
  const ownerNames = owner.resourceNames ?? [];
  if (ownerNames.length === 0) return true;
  const subNames = sub.resourceNames ?? [];
  return subNames.length > 0 && subNames.every((n) => ownerNames.includes(n));
}

/**
 * The parts of `requested` that `owned` does not grant (empty: covered), each as one verb on
 * one resource or URL.
 */
export function uncoveredRules(owned: readonly PolicyRule[], requested: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of requested) {
    for (const sub of atomicRules(rule)) {
      if (!owned.some((o) => ruleCovers(o, sub))) missing.push(sub);
    }
  }
  return missing;
}

/** Reads the rules of a Role or ClusterRole object, dropping malformed entries. */
export function rulesOf(obj: object): PolicyRule[] {
  const raw = (obj as { rules?: unknown }).rules;
  if (!Array.isArray(raw)) return [];
  const strings = (v: unknown): string[] | undefined =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined;
  const out: PolicyRule[] = [];
  for (const r of raw) {
    if (typeof r !== "object" || r === null) continue;
    const item = r as Record<string, unknown>;
    const rule: PolicyRule = { verbs: strings(item.verbs) ?? [] };
    const groups = strings(item.apiGroups);
    if (groups) rule.apiGroups = groups;
    const resources = strings(item.resources);
    if (resources) rule.resources = resources;
    const names = strings(item.resourceNames);
    if (names) rule.resourceNames = names;
    const urls = strings(item.nonResourceURLs);
    if (urls) rule.nonResourceURLs = urls;
    out.push(rule);
  }
  return out;
}

/** A rule as kube-apiserver prints it in escalation errors: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}`. */
export function compactRuleString(rule: PolicyRule): string {
  const parts: string[] = [];
  const list = (xs: readonly string[]) => `[${xs.map((x) => JSON.stringify(x)).join(" ")}]`;
  if (rule.apiGroups?.length) parts.push(`APIGroups:${list(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${list(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${list(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${list(rule.resourceNames)}`);
  parts.push(`Verbs:${list(rule.verbs)}`);
  return `{${parts.join(", ")}}`;
}

/**
 * Missing atomic rules as kube-apiserver lists them in an escalation error: atoms on the same
 * group, resource and name merged into one rule with their verbs, one line each, sorted.
 */
export function compactMissingRules(missing: readonly PolicyRule[]): string[] {
  const merged = new Map<string, PolicyRule>();
  const lines = new Set<string>();
  for (const atom of missing) {
    if (atom.nonResourceURLs?.length) {
      lines.add(compactRuleString(atom));
      continue;
    }
    const key = JSON.stringify([atom.apiGroups, atom.resources, atom.resourceNames ?? []]);
    const existing = merged.get(key);
    // Verbs are appended as they come, as kube-apiserver's compaction does (repeats included).
    if (existing) existing.verbs.push(...atom.verbs);
    else merged.set(key, { ...atom, verbs: [...atom.verbs] });
  }
  for (const r of merged.values()) lines.add(compactRuleString(r));
  return [...lines].sort();
}
