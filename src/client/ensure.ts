/**
 * Idempotent creation through any {@link Client}: what registration steps need so that a
 * second run, or a run after a partial failure, finds its objects in place instead of failing.
 */
import type { NewObject, StoredObject } from "../api/meta.ts";
import { isAlreadyExists, isNotFound } from "../machinery/errors.ts";
import { type Client, RESOURCES } from "./client.ts";

type Resource = Parameters<Client["create"]>[0];

/** Creates `obj`; an object of that name already there is left as it is. */
export async function createIfAbsent(
  client: Client,
  res: Resource,
  obj: Record<string, unknown>,
): Promise<void> {
  try {
    await client.create(res, obj);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/**
 * A namespace, looked for before it is created: identities such as an agent may `get`
 * namespaces but not create them, and need not once it exists.
 */
export async function ensureNamespace(
  client: Client,
  namespace: Record<string, unknown> & { metadata: { name: string } },
): Promise<void> {
  try {
    await client.get(RESOURCES.namespaces, undefined, namespace.metadata.name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await createIfAbsent(client, RESOURCES.namespaces, namespace);
  }
}

/** Creates `obj`, or replaces the object of that name with it (what `kubectl apply` would leave). */
export async function createOrReplace(client: Client, res: Resource, obj: NewObject): Promise<void> {
  try {
    await client.create(res, obj);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    const current = await client.get(res, obj.metadata.namespace, obj.metadata.name!);
    await client.update(res, {
      ...obj,
      metadata: { ...obj.metadata, resourceVersion: current.metadata.resourceVersion! },
    });
  }
}
