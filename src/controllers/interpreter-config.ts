/**
 * Keeps the controllers' interpreter in step with the control plane: the
 * ResourceInterpreterCustomizations (Lua, highest precedence), then our bundled third-party
 * scripts, then the native interpreter. A customization created, edited or deleted takes effect
 * for the next operation, without a restart. Until the Lua engine is up and the customizations
 * are listed, operations wait (a template is never interpreted natively by mistake).
 */
import { CustomizationSource } from "../interpreter/customizations.ts";
import type { Interpreter } from "../interpreter/index.ts";
import { LuaEngine } from "../interpreter/lua/engine.ts";
import { BUNDLED_CUSTOMIZATIONS } from "../interpreter/thirdparty/index.ts";
import type { InterpreterSource } from "../interpreter/types.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { Logger } from "../log.ts";
import type { InformerFactory } from "../runtime/informer.ts";

const SYNC_TIMEOUT_MS = 30_000;

export function configureInterpreter(
  informers: InformerFactory,
  interpreter: Interpreter,
  log: Logger,
): void {
  const rics = informers.informer(KARMADA.resourceInterpreterCustomizations);
  const ready = (async () => {
    const engine = await LuaEngine.create();
    const customizations = new CustomizationSource("customization", engine);
    const bundled = new CustomizationSource("thirdparty", engine);
    bundled.set(BUNDLED_CUSTOMIZATIONS);
    const sources: InterpreterSource[] = [customizations, bundled];
    let pending = false;
    const update = (): void => {
      // A burst of events (the initial list) rebuilds once.
      if (pending) return;
      pending = true;
      queueMicrotask(() => {
        pending = false;
        customizations.set(rics.list());
        interpreter.setSources(sources);
      });
    };
    rics.addHandler({ onAdd: update, onUpdate: update, onDelete: update });
    // A control plane that will not list customizations (no permission, say) must not hold up
    // every interpreter call: after a while the sources go ahead with what has been seen.
    let timer: NodeJS.Timeout | undefined;
    const synced = await Promise.race([
      rics.waitForSync().then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), SYNC_TIMEOUT_MS);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    if (!synced) log.warn("resource interpreter: customizations not listed yet; going on without them", {});
    customizations.set(rics.list());
    interpreter.setSources(sources);
  })();
  ready.catch((err: unknown) =>
    log.error(
      err as Error,
      "resource interpreter: customizations are not available; using the native interpreter",
    ),
  );
  interpreter.waitFor(ready);
}
