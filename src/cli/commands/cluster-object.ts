/**
 * The control-plane half of `unjoin` and `unregister`, shared as upstream's
 * DeleteClusterObject is: the Cluster must exist and be of the command's sync mode; it is
 * deleted, then waited for until its finalizers are done.
 */
import { isObject } from "../../api/meta.ts";
import { type Client, RESOURCES } from "../../client/client.ts";
import { isNotFound } from "../../machinery/errors.ts";
import { CommandError } from "../io.ts";

const notFoundError = (name: string) =>
  new CommandError(`no cluster object ${name} found in karmada control Plane`);

/** Refuses a missing Cluster, and one in `otherMode` (naming the command that removes it). */
export async function checkClusterToRemove(
  karmada: Client,
  name: string,
  otherMode: { mode: "Push" | "Pull"; command: string },
): Promise<void> {
  let cluster: Awaited<ReturnType<Client["get"]>>;
  try {
    cluster = await karmada.get(RESOURCES.clusters, undefined, name);
  } catch (err) {
    if (isNotFound(err)) throw notFoundError(name);
    throw err;
  }
  if (isObject(cluster.spec) && cluster.spec.syncMode === otherMode.mode) {
    const [mode, verb] = otherMode.mode === "Push" ? ["Push", "unjoining"] : ["Pull", "unregistering"];
    throw new CommandError(
      `cluster ${name} is a ${mode} mode member cluster, please use command \`${otherMode.command}\` if you want to continue ${verb} the cluster`,
    );
  }
}

/** Deletes the Cluster and waits until it is gone; false when `deadline` passed first. */
export async function deleteClusterObject(
  karmada: Client,
  name: string,
  deadline: number,
  pollMs: number,
): Promise<boolean> {
  await karmada.delete(RESOURCES.clusters, undefined, name).catch((err) => {
    if (isNotFound(err)) throw notFoundError(name);
    throw err;
  });
  for (;;) {
    try {
      await karmada.get(RESOURCES.clusters, undefined, name);
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
