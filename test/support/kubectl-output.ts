/**
 * Helpers for reading kubectl's output in the e2e tests: tables cut at the header's column
 * offsets (kubectl's tabwriter aligns every cell under its header), manifests from objects.
 */
import { expect } from "vitest";

/** What kubectl prints in an AGE column (`0s`, `75s`, `2m3s`, `3h`, ...). */
export const AGE = /^[0-9]+[smhdy]([0-9]+[smhdy])?$/;

/** A matcher for an AGE cell. */
export const age = (): unknown => expect.stringMatching(AGE);

export interface Table {
  header: string[];
  rows: string[][];
}

/**
 * Parses one aligned table (the first block of non-empty lines). Column starts are taken from the
 * header: header names are single-space separated words, columns are separated by 3+ spaces.
 */
export function table(text: string): Table {
  const block = text.split("\n\n")[0] ?? "";
  return parseBlock(block);
}

/** Every table of a multi-table output (`kubectl get all`, several types). */
export function tables(text: string): Table[] {
  return text
    .split(/\n\s*\n/)
    .filter((b) => b.trim() !== "")
    .map(parseBlock);
}

function parseBlock(block: string): Table {
  const lines = block.split("\n").filter((l) => l.trim() !== "");
  const head = lines[0] ?? "";
  const starts: number[] = [];
  const header: string[] = [];
  for (const m of head.matchAll(/\S+(?: \S+)*/g)) {
    starts.push(m.index);
    header.push(m[0]);
  }
  const rows = lines.slice(1).map((line) =>
    starts.map((start, i) => {
      const end = starts[i + 1];
      return (end === undefined ? line.slice(start) : line.slice(start, end)).trim();
    }),
  );
  return { header, rows };
}

/** Cells of an unaligned line (watch output after the first flush): split at 2+ spaces. */
export function cells(line: string): string[] {
  return line.trim().split(/\s{2,}/);
}

/** Non-empty output lines. */
export function lines(text: string): string[] {
  return text.split("\n").filter((l) => l.trim() !== "");
}

/**
 * A multi-document YAML manifest from objects, each document written as JSON (which is YAML):
 * kubectl reads YAML 1.1, where plain `y`, `yes`, `on` are booleans. Every document starts
 * with `---` so kubectl reads the stream as YAML rather than as one JSON value.
 */
export function manifest(...objects: unknown[]): string {
  return objects.map((o) => `---\n${JSON.stringify(o, null, 2)}\n`).join("");
}

/** Builds a ConfigMap. */
export function configMap(
  name: string,
  data: Record<string, string>,
  extra: { namespace?: string; labels?: Record<string, string>; metadata?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      ...(extra.namespace ? { namespace: extra.namespace } : {}),
      ...(extra.labels ? { labels: extra.labels } : {}),
      ...extra.metadata,
    },
    data,
  };
}

/** Builds an apps/v1 Deployment with one container named `nginx` (or the given containers). */
export function deployment(
  name: string,
  opts: {
    namespace?: string;
    replicas?: number;
    image?: string;
    labels?: Record<string, string>;
    containers?: unknown[];
  } = {},
): Record<string, unknown> {
  const labels = opts.labels ?? { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, ...(opts.namespace ? { namespace: opts.namespace } : {}), labels },
    spec: {
      replicas: opts.replicas ?? 1,
      selector: { matchLabels: { app: labels.app ?? name } },
      template: {
        metadata: { labels },
        spec: { containers: opts.containers ?? [{ name: "nginx", image: opts.image ?? "nginx:1.25" }] },
      },
    },
  };
}

/** Parses `-o json` output. */
export function json<T = Record<string, unknown>>(text: string): T {
  return JSON.parse(text) as T;
}
