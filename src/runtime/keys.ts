/**
 * Work-queue keys, one encode/parse pair per kind of key, so no controller splits strings.
 *
 * Most controllers reconcile objects: their key is `namespace/name` (or `name` for a
 * cluster-scoped object), as client-go's MetaNamespaceKeyFunc writes it. Controllers keyed by
 * something else (a cluster and a kind, a resource and an object) declare a `KeyKind` with
 * `tupleKey`, whose encoding cannot be confused by separators inside the parts.
 */
import type { ObjectMeta } from "../api/meta.ts";

/** What an object key names. */
export interface ObjectRef {
  namespace: string | undefined;
  name: string;
}

export interface KeyKind<K> {
  encode(key: K): string;
  parse(key: string): K;
}

/** `namespace/name`, or `name` for cluster-scoped objects. */
export const objectKeys: KeyKind<ObjectRef> & {
  /** The key of an object (or of its metadata's namespace and name). */
  of(obj: { metadata: Pick<ObjectMeta, "namespace" | "name"> }): string;
} = {
  encode: ({ namespace, name }) => (namespace ? `${namespace}/${name}` : name),
  parse(key) {
    const slash = key.indexOf("/");
    return slash < 0
      ? { namespace: undefined, name: key }
      : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
  },
  of: (obj) => objectKeys.encode({ namespace: obj.metadata.namespace, name: obj.metadata.name ?? "" }),
};

/** The key of an object: `namespace/name`, or `name` when cluster-scoped. */
export const objectKey = objectKeys.of;

/** What an object key names. */
export const parseObjectKey = objectKeys.parse;

/**
 * A key made of named string parts (an absent part is encoded as such), e.g.
 * `tupleKey(["cluster", "apiVersion", "kind"])`. The encoding is JSON, so parts may hold any
 * character; equal tuples always encode to the same string, which the queue's dedup needs.
 */
export function tupleKey<const F extends readonly string[]>(
  fields: F,
): KeyKind<{ [P in F[number]]: string | undefined }> {
  type K = { [P in F[number]]: string | undefined };
  return {
    encode: (key: K) => JSON.stringify(fields.map((f) => key[f as F[number]] ?? null)),
    parse(key: string): K {
      const parts: unknown = JSON.parse(key);
      if (!Array.isArray(parts) || parts.length !== fields.length)
        throw new Error(`not a key of [${fields.join(", ")}]: ${key}`);
      const out: Record<string, string | undefined> = {};
      fields.forEach((f, i) => {
        const v = parts[i];
        out[f] = typeof v === "string" ? v : undefined;
      });
      return out as K;
    },
  };
}
