/**
 * Keeps the controllers' interpreter in step with the control plane: the
 * ResourceInterpreterCustomizations (Lua, highest precedence), then the interpreter webhooks
 * (ResourceInterpreterWebhookConfigurations), then our bundled third-party scripts, then the
 * native interpreter. A customization or webhook configuration created, edited or deleted
 * takes effect for the next operation, without a restart. Until the Lua engine is up and the
 * configurations are listed, operations wait (a template is never interpreted natively by
 * mistake).
 */

import type { StoredObject } from "../api/meta.ts";
import { CustomizationSource } from "../interpreter/customizations.ts";
import type { Interpreter } from "../interpreter/index.ts";
import { LuaEngine } from "../interpreter/lua/engine.ts";
import { BUNDLED_CUSTOMIZATIONS } from "../interpreter/thirdparty/index.ts";
import type { InterpreterSource } from "../interpreter/types.ts";
import { WebhookInterpreter } from "../interpreter/webhook/interpreter.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { Logger } from "../log.ts";
import type { InformerFactory } from "../runtime/informer.ts";

const SYNC_TIMEOUT_MS = 30_000;

/** Returns what to call on shutdown (the webhooks' pooled connections). */
export function configureInterpreter(
  informers: InformerFactory,
  interpreter: Interpreter,
  log: Logger,
): () => void {
  const rics = informers.informer(KARMADA.resourceInterpreterCustomizations);
  const riwcs = informers.informer(KARMADA.resourceInterpreterWebhookConfigurations);
  const webhooks = new WebhookInterpreter();
  const ready = (async () => {
    const engine = await LuaEngine.create();
    const customizations = new CustomizationSource("customization", engine);
    const bundled = new CustomizationSource("thirdparty", engine);
    bundled.set(BUNDLED_CUSTOMIZATIONS);
    const sources: InterpreterSource[] = [customizations, webhooks, bundled];
    // What each kind's customizations and the webhook configurations were when last applied,
    // so that listeners hear only about the kinds whose interpretation changed.
    let scripts = new Map<string, string>();
    let hooks = "";
    let started = false;
    const refresh = (): void => {
      const list = rics.list();
      customizations.set(list);
      webhooks.setConfigurations(riwcs.list());
      interpreter.setSources(sources);
      const nextScripts = scriptsByKind(list);
      const nextHooks = JSON.stringify(
        riwcs.list().map((c) => [c.metadata.name, c.metadata.resourceVersion]),
      );
      const changed = new Set<string>();
      for (const k of new Set([...scripts.keys(), ...nextScripts.keys()]))
        if (scripts.get(k) !== nextScripts.get(k)) changed.add(k);
      const hooksChanged = nextHooks !== hooks;
      scripts = nextScripts;
      hooks = nextHooks;
      // Nothing was interpreted before the first refresh (operations wait for it).
      if (!started) return;
      interpreter.changed(hooksChanged ? "all" : changed);
    };
    let pending = false;
    const update = (): void => {
      // A burst of events (the initial list) rebuilds once.
      if (pending) return;
      pending = true;
      queueMicrotask(() => {
        pending = false;
        refresh();
      });
    };
    for (const inf of [rics, riwcs]) inf.addHandler({ onAdd: update, onUpdate: update, onDelete: update });
    // A control plane that will not list these (no permission, say) must not hold up every
    // interpreter call: after a while the sources go ahead with what has been seen.
    let timer: NodeJS.Timeout | undefined;
    const synced = await Promise.race([
      Promise.all([rics.waitForSync(), riwcs.waitForSync()]).then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), SYNC_TIMEOUT_MS);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    if (!synced) log.warn("resource interpreter: customizations not listed yet; going on without them", {});
    refresh();
    started = true;
  })();
  ready.catch((err: unknown) =>
    log.error(
      err as Error,
      "resource interpreter: customizations are not available; using the native interpreter",
    ),
  );
  interpreter.waitFor(ready);
  return () => webhooks.close();
}

/** Each target kind's customizations (`apiVersion|kind` → their specs, in name order). */
function scriptsByKind(list: readonly StoredObject[]): Map<string, string> {
  const byKind = new Map<string, unknown[]>();
  const sorted = [...list].sort((a, b) => ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1));
  for (const ric of sorted) {
    if (ric.metadata.deletionTimestamp) continue;
    const target = (ric.spec as { target?: { apiVersion?: string; kind?: string } } | undefined)?.target;
    if (!target?.apiVersion || !target.kind) continue;
    const key = `${target.apiVersion}|${target.kind}`;
    byKind.set(key, [...(byKind.get(key) ?? []), (ric.spec as { customizations?: unknown }).customizations]);
  }
  return new Map([...byKind].map(([k, v]) => [k, JSON.stringify(v)]));
}
