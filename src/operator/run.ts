/**
 * `karmada operator`: the karmada controller on a host cluster, one replica leading through
 * the Lease `karmada-operator` (as upstream's `--leader-elect-resource-name`). On start it
 * makes sure the host serves `karmadas.operator.karmada.io` (upstream's CRD applied by the user
 * is kept; on a host without it, a CRD of ours with the same names, columns and status
 * subresource is created) and that the Lease's namespace exists.
 */

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { KubeObject } from "../api/meta.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import type { Logger } from "../log.ts";
import { isAlreadyExists, isForbidden, isNotFound } from "../machinery/errors.ts";
import { runController } from "../runtime/controller.ts";
import { eventRecorder } from "../runtime/events.ts";
import { InformerFactory } from "../runtime/informer.ts";
import { LeaderElector } from "../runtime/leader.ts";
import { karmadaController, type OperatorOptions } from "./controller.ts";
import { KARMADAS } from "./karmada.ts";

export const OPERATOR_LEASE = "karmada-operator";
const CRD_NAME = "karmadas.operator.karmada.io";

/** Our CRD for `Karmada` where upstream's is not installed: its names, columns and status subresource; fields are checked by the operator. */
function karmadaCrd(): KubeObject {
  const open = { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: CRD_NAME },
    spec: {
      group: "operator.karmada.io",
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
          name: "v1alpha1",
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: "READY", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: "AGE", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                metadata: { type: "object" },
                spec: open,
                status: open,
              },
            },
          },
        },
      ],
    },
  };
}

async function ensure(
  client: Client,
  what: string,
  create: () => Promise<unknown>,
  log: Logger,
): Promise<void> {
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
    await client.get(RESOURCES.customresourcedefinitions, undefined, CRD_NAME);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await ensure(
      client,
      `CustomResourceDefinition ${CRD_NAME}`,
      () => client.create(RESOURCES.customresourcedefinitions, karmadaCrd()),
      log,
    );
  }
  await ensure(
    client,
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
  leaderElection: {
    enabled: boolean;
    namespace: string;
    leaseDurationMs: number;
    renewDeadlineMs: number;
    retryPeriodMs: number;
  };
  /** `--concurrent-karmada-syncs` (5). */
  workers: number;
  onLost?: () => void;
}

export interface RunningOperator {
  identity: string;
  stop(): Promise<void>;
}

export function startOperator(opts: OperatorRunOptions): RunningOperator {
  const identity = `${hostname()}_${randomBytes(8).toString("hex")}`;
  let running: { stop(): void } | undefined;
  let stopping = false;
  const startControllers = (): void => {
    const informers = new InformerFactory(opts.client, { log: opts.log });
    const karmadas = informers.informer(KARMADAS);
    const controller = karmadaController({
      client: opts.client,
      karmadas,
      recorder: eventRecorder(opts.client, OPERATOR_LEASE, { now: Date.now, log: opts.log }),
      options: { image: opts.image },
    });
    const run = runController(
      { ...controller, workers: opts.workers },
      { log: opts.log, ready: informers.waitForSync() },
    );
    informers.start();
    running = {
      stop() {
        run.stop();
        informers.stop();
      },
    };
  };
  const stopControllers = (): void => {
    running?.stop();
    running = undefined;
  };
  if (!opts.leaderElection.enabled) {
    startControllers();
    return { identity, stop: async () => stopControllers() };
  }
  const elector = new LeaderElector({
    client: opts.client,
    namespace: opts.leaderElection.namespace,
    name: OPERATOR_LEASE,
    identity,
    leaseDurationMs: opts.leaderElection.leaseDurationMs,
    renewDeadlineMs: opts.leaderElection.renewDeadlineMs,
    retryPeriodMs: opts.leaderElection.retryPeriodMs,
    releaseOnCancel: true,
    log: opts.log.child({ component: "leader-election" }),
    onStartedLeading: () => {
      opts.log.info("started leading", { identity });
      startControllers();
    },
    onStoppedLeading: () => {
      stopControllers();
      if (!stopping) opts.onLost?.();
    },
  });
  elector.start();
  return {
    identity,
    async stop() {
      stopping = true;
      stopControllers();
      await elector.stop();
    },
  };
}
