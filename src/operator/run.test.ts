import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../test/support/api.ts";
import { RESOURCES } from "../client/client.ts";
import { LocalClient } from "../client/local.ts";
import { silentLogger } from "../log.ts";
import { KARMADAS } from "./karmada.ts";
import { ensureHostReady } from "./run.ts";

describe("the operator on a host without upstream's CRD", () => {
  let api: TestApi;
  let client: LocalClient;
  beforeEach(async () => {
    api = await startTestApi();
    client = new LocalClient(api.server.context);
  });
  afterEach(() => api.close());

  it("creates a Karmada CRD of its own and the Lease's namespace, and Karmada objects keep what they are given", async () => {
    await ensureHostReady(client, "karmada-system", silentLogger);
    await ensureHostReady(client, "karmada-system", silentLogger); // a second start finds both
    await client.get(RESOURCES.namespaces, undefined, "karmada-system");
    const crd = await client.get(
      RESOURCES.customresourcedefinitions,
      undefined,
      "karmadas.operator.karmada.io",
    );
    expect((crd.spec as { versions: Array<{ subresources: unknown }> }).versions[0]?.subresources).toEqual({
      status: {},
    });
    await client.create(RESOURCES.namespaces, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "test" },
    });
    const spec = {
      components: { etcd: { local: { replicas: 1 } }, karmadaAPIServer: { serviceType: "NodePort" } },
    };
    const made = await client.create(KARMADAS, {
      apiVersion: "operator.karmada.io/v1alpha1",
      kind: "Karmada",
      metadata: { name: "k", namespace: "test" },
      spec,
    });
    expect(made.spec).toEqual(spec);
  });
});
