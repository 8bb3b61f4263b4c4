/**
 * `karmada operator`: the karmada controller on a host cluster, one replica leading through
 * the Lease `karmada-operator` (as upstream's `--leader-elect-resource-name`). On start it
 * makes sure the host serves `karmadas.operator.karmada.io` (upstream's CRD applied by the user
 * is kept; on a host without it, a CRD of ours with the same names, columns and status
 * subresource is created) and that the Lease's namespace exists.
 */

import { crd, s, topLevel } from "../api/schema.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import type { Logger } from "../log.ts";
import { isAlreadyExists, isForbidden, isNotFound } from "../machinery/errors.ts";
import type { Registry as MetricsRegistry } from "../metrics/registry.ts";
import { runController } from "../runtime/controller.ts";
import { eventRecorder } from "../runtime/events.ts";
import { InformerFactory } from "../runtime/informer.ts";
import { type Elected, type LeaderElectionFlags, runElected } from "../runtime/leader.ts";
import { karmadaController, type OperatorOptions } from "./controller.ts";
import { KARMADAS } from "./karmada.ts";

export const OPERATOR_LEASE = "karmada-operator";

/** Our CRD for `Karmada` where upstream's is not installed: its names, columns and status subresource; fields are checked by the operator. */
const karmadaCrd = crd({
  group: KARMADAS.group,
  names: {
    kind: "Karmada",
    listKind: "KarmadaList",
    plural: "karmadas",
    singular: "karmada",
    categories: ["karmada-io"],
  },
  scope: "Namespaced",
  versions: [
    {
      name: KARMADAS.version,
      served: true,
      storage: true,
      subresources: { status: {} },
      additionalPrinterColumns: [
        { name: "READY", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
        { name: "AGE", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ],
      schema: { openAPIV3Schema: topLevel({ spec: s.preserve(), status: s.preserve() }) },
    },
  ],
});

async function ensure(what: string, create: () => Promise<unknown>, log: Logger): Promise<void> {
  try {
    await create();
    log.info(`created ${what}`);
  } catch (err) {
    if (isAlreadyExists(err)) return;
    if (isForbidden(err)) {
      log.warn(`cannot create ${what}; it must exist already`, { err: (err as Error).message });
      return;
    }
    throw err;
  }
}

export async function ensureHostReady(client: Client, leaseNamespace: string, log: Logger): Promise<void> {
  try {
    await client.get(RESOURCES.customresourcedefinitions, undefined, karmadaCrd.metadata.name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await ensure(
      `CustomResourceDefinition ${karmadaCrd.metadata.name}`,
      () => client.create(RESOURCES.customresourcedefinitions, { ...karmadaCrd }),
      log,
    );
  }
  await ensure(
    `namespace ${leaseNamespace}`,
    () =>
      client.create(RESOURCES.namespaces, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: leaseNamespace },
      }),
    log,
  );
}

export interface OperatorRunOptions extends OperatorOptions {
  client: Client;
  log: Logger;
  leaderElection: Omit<LeaderElectionFlags, "name" | "identity">;
  /** `--concurrent-karmada-syncs` (5). */
  workers: number;
  onLost?: () => void;
  /** Where the work queue's, reconcile and leader-election metrics go. */
  metrics?: MetricsRegistry;
}

/** The karmada controller while this replica leads the Lease `karmada-operator`. */
export function startOperator(opts: OperatorRunOptions): Elected & { cachesSynced(): boolean } {
  let informers: InformerFactory | undefined;
  const elected = runElected({
    client: opts.client,
    log: opts.log,
    leaderElection: { ...opts.leaderElection, name: OPERATOR_LEASE },
    ...(opts.onLost ? { onLost: opts.onLost } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    start: () => {
      informers = new InformerFactory(opts.client, { log: opts.log });
      const karmadas = informers.informer(KARMADAS);
      const controller = karmadaController({
        client: opts.client,
        karmadas,
        recorder: eventRecorder(opts.client, OPERATOR_LEASE, { now: Date.now, log: opts.log }),
        options: { image: opts.image },
      });
      const run = runController(
        { ...controller, workers: opts.workers },
        { log: opts.log, ready: informers.waitForSync(), ...(opts.metrics ? { metrics: opts.metrics } : {}) },
      );
      informers.start();
      const running = informers;
      return () => {
        run.stop();
        running.stop();
        informers = undefined;
      };
    },
  });
  return { ...elected, cachesSynced: () => informers?.hasSynced() ?? true };
}
