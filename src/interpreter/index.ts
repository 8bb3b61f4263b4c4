/**
 * The interpreter the controllers use: per operation and kind, the first source that has a
 * hook answers, in upstream's order (Lua customizations, then interpreter webhooks, then our
 * bundled third-party scripts), and the native interpreter last. Sources are swapped as the
 * customizations and webhook configurations change, without a restart. Every operation is
 * asynchronous (a webhook is a network call); each answers `undefined` when nobody has a hook,
 * so callers keep upstream's fallbacks.
 */
import type { KubeObject } from "../api/meta.ts";
import type { AggregatedStatusItem, ReplicaRequirements } from "../karmada/types.ts";
import type {
  DependentObjectReference,
  Health,
  InterpreterOperation,
  InterpreterSource,
  ResourceInterpreter,
} from "./types.ts";

export class Interpreter {
  readonly #native: ResourceInterpreter;
  #sources: readonly InterpreterSource[];
  /** Operations wait for this: the sources are loaded (customizations listed, Lua engine up). */
  #ready: Promise<unknown> = Promise.resolve();
  readonly #listeners: Array<(kinds: ReadonlySet<string> | "all") => void> = [];

  constructor(native: ResourceInterpreter, sources: readonly InterpreterSource[] = []) {
    this.#native = native;
    this.#sources = sources;
  }

  /** Operations wait until `ready` settles (a failure leaves the native interpreter alone in charge). */
  waitFor(ready: Promise<unknown>): void {
    this.#ready = ready.catch(() => undefined);
  }

  /** The sources before the native interpreter, highest precedence first. */
  setSources(sources: readonly InterpreterSource[]): void {
    this.#sources = sources;
  }

  /**
   * Called after the sources changed, with the kinds (`apiVersion|kind`) whose interpretation
   * may now differ, or "all" when that cannot be told (a webhook's rules changed).
   */
  onChange(listener: (kinds: ReadonlySet<string> | "all") => void): void {
    this.#listeners.push(listener);
  }

  /** Tells the listeners which kinds are interpreted differently now. */
  changed(kinds: ReadonlySet<string> | "all"): void {
    if (kinds !== "all" && kinds.size === 0) return;
    for (const l of this.#listeners) l(kinds);
  }

  /** The source answering `operation` for `obj`'s kind, or undefined for the native interpreter. */
  async sourceFor(operation: InterpreterOperation, obj: KubeObject): Promise<InterpreterSource | undefined> {
    await this.#ready;
    const apiVersion = obj.apiVersion ?? "";
    const kind = obj.kind ?? "";
    return this.#sources.find((s) => s.handles(operation, apiVersion, kind));
  }

  /** Upstream's HookEnabled: some source, or the native interpreter, has a hook for the operation on the kind. */
  async hookEnabled(operation: InterpreterOperation, apiVersion: string, kind: string): Promise<boolean> {
    if (await this.sourceFor(operation, { apiVersion, kind, metadata: {} })) return true;
    return this.#native.handles?.(operation, apiVersion, kind) ?? false;
  }

  async getReplicas(
    obj: KubeObject,
  ): Promise<{ replicas: number; requirements?: ReplicaRequirements } | undefined> {
    const s = await this.sourceFor("InterpretReplica", obj);
    return s ? s.getReplicas(obj) : this.#native.getReplicas(obj);
  }

  async reviseReplica(obj: KubeObject, replicas: number): Promise<KubeObject | undefined> {
    const s = await this.sourceFor("ReviseReplica", obj);
    return s ? s.reviseReplica(obj, replicas) : this.#native.reviseReplica(obj, replicas);
  }

  async retain(desired: KubeObject, observed: KubeObject): Promise<KubeObject | undefined> {
    const s = await this.sourceFor("Retain", desired);
    return s ? s.retain(desired, observed) : this.#native.retain(desired, observed);
  }

  /** As ResourceInterpreter.reflectStatus: `null` nothing to record, `undefined` no hook. */
  async reflectStatus(obj: KubeObject): Promise<Record<string, unknown> | null | undefined> {
    const s = await this.sourceFor("InterpretStatus", obj);
    return s ? s.reflectStatus(obj) : this.#native.reflectStatus(obj);
  }

  async interpretHealth(obj: KubeObject): Promise<Health | undefined> {
    const s = await this.sourceFor("InterpretHealth", obj);
    return s ? s.interpretHealth(obj) : this.#native.interpretHealth(obj);
  }

  async aggregateStatus(
    template: KubeObject,
    items: readonly AggregatedStatusItem[],
  ): Promise<KubeObject | undefined> {
    const s = await this.sourceFor("AggregateStatus", template);
    return s ? s.aggregateStatus(template, items) : this.#native.aggregateStatus(template, items);
  }

  async getDependencies(obj: KubeObject): Promise<DependentObjectReference[] | undefined> {
    const s = await this.sourceFor("InterpretDependency", obj);
    return s ? s.getDependencies(obj) : this.#native.getDependencies(obj);
  }
}
