/**
 * Column definitions and cell formats shared by the printers of several kinds:
 * Name and Age, container names/images, label maps and label selectors.
 */

import { translateTimestampSince } from "./age.ts";
import { FIELD_DOCS, type FieldDocKey } from "./descriptions.ts";
import { at, isObject, list, str } from "./read.ts";
import type { KubeObject, TableColumnDefinition } from "./types.ts";

export function column(
  name: string,
  type: string,
  description: string,
  options: { priority?: number; format?: string } = {},
): TableColumnDefinition {
  return { name, type, format: options.format ?? "", description, priority: options.priority ?? 0 };
}

/** A column described by an upstream field doc. */
export function fieldColumn(
  name: string,
  type: string,
  doc: FieldDocKey,
  options: { priority?: number; format?: string } = {},
): TableColumnDefinition {
  return column(name, type, FIELD_DOCS[doc], options);
}

export const NAME_COLUMN = fieldColumn("Name", "string", "ObjectMeta.name", { format: "name" });
export const AGE_COLUMN = fieldColumn("Age", "string", "ObjectMeta.creationTimestamp");
export const CONTAINERS_COLUMN = column("Containers", "string", "Names of each container in the template.", {
  priority: 1,
});
export const IMAGES_COLUMN = column(
  "Images",
  "string",
  "Images referenced by each container in the template.",
  {
    priority: 1,
  },
);

export function nameOf(obj: unknown): string {
  return str(obj, "metadata", "name");
}

export function ageOf(obj: KubeObject, now: number): string {
  return translateTimestampSince(at(obj, "metadata", "creationTimestamp"), now);
}

/** The Containers and Images cells: names and images of the containers, comma separated. */
export function containerCells(containers: unknown[]): [names: string, images: string] {
  return [containers.map((c) => str(c, "name")).join(","), containers.map((c) => str(c, "image")).join(",")];
}

/** `labels.FormatLabels`: `k=v` pairs sorted by key, comma separated; `<none>` when empty. */
export function formatLabels(labels: unknown): string {
  if (!isObject(labels)) return "<none>";
  const text = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${typeof labels[k] === "string" ? labels[k] : ""}`)
    .join(",");
  return text === "" ? "<none>" : text;
}

/**
 * A `metav1.LabelSelector` in selector syntax (`app=web,tier in (a,b),!legacy`), requirements sorted
 * by key; undefined when the selector is invalid. An absent or empty selector is "".
 */
export function labelSelectorString(selector: unknown): string | undefined {
  if (selector === undefined || selector === null) return "";
  if (!isObject(selector)) return undefined;
  const requirements: Array<{ key: string; text: string }> = [];
  const matchLabels = selector.matchLabels;
  if (isObject(matchLabels)) {
    for (const [key, value] of Object.entries(matchLabels)) {
      requirements.push({ key, text: `${key}=${typeof value === "string" ? value : ""}` });
    }
  }
  for (const expr of list(selector, "matchExpressions")) {
    const key = str(expr, "key");
    const values = list(expr, "values")
      .filter((v): v is string => typeof v === "string")
      .sort();
    switch (str(expr, "operator")) {
      case "In":
      case "NotIn": {
        if (values.length === 0) return undefined;
        const op = str(expr, "operator") === "In" ? "in" : "notin";
        requirements.push({ key, text: `${key} ${op} (${values.join(",")})` });
        break;
      }
      case "Exists":
        if (values.length > 0) return undefined;
        requirements.push({ key, text: key });
        break;
      case "DoesNotExist":
        if (values.length > 0) return undefined;
        requirements.push({ key, text: `!${key}` });
        break;
      default:
        return undefined;
    }
  }
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return requirements.map((r) => r.text).join(",");
}

/** `metav1.FormatLabelSelector`: the selector text, `<none>` when empty, `<error>` when invalid. */
export function formatLabelSelector(selector: unknown): string {
  const text = labelSelectorString(selector);
  if (text === undefined) return "<error>";
  return text === "" ? "<none>" : text;
}
