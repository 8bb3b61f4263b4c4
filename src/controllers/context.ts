/**
 * What the controller manager hands every controller: the control-plane client, shared
 * informers, member connections, an event recorder, a clock, options and a logger.
 */
import type { Client } from "../client/client.ts";
import type { MemberConnections } from "../cluster/connections.ts";
import type { MemberWatches } from "../cluster/member-watches.ts";
import type { Interpreter } from "../interpreter/index.ts";
import type { Logger } from "../log.ts";
import type { Registry } from "../metrics/registry.ts";
import type { EventRecorder } from "../runtime/events.ts";
import type { InformerFactory } from "../runtime/informer.ts";
import type { ControllerOptions } from "./options.ts";

/** Declared with the flags that set them (options.ts). */
export type { ControllerOptions } from "./options.ts";

export interface ControllerContext {
  client: Client;
  informers: InformerFactory;
  members: MemberConnections;
  /** Watches of Karmada's objects in members, shared by work status and execution. */
  memberWatches: MemberWatches;
  /** An event recorder whose events name `component` as their source (upstream's controller name). */
  recorder(component: string): EventRecorder;
  log: Logger;
  now(): number;
  options: ControllerOptions;
  /** The resource interpreter: customizations, webhooks, bundled scripts, then native. */
  interpreter: Interpreter;
  /** The process's metrics registry: the work queues' and controller-runtime's, and each controller's own (metrics.ts). */
  metrics: Registry;
}
