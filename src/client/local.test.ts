import { expect, it } from "vitest";
import {
  failure,
  runClientConformance,
  startConformanceServer,
} from "../../test/support/client-conformance.ts";
import { isBadRequest } from "../machinery/errors.ts";
import { RESOURCES } from "./client.ts";
import { LocalClient } from "./local.ts";

runClientConformance("local (in process)", async () => {
  const server = await startConformanceServer();
  return { client: new LocalClient(server.api.context), store: server.store, close: () => server.close() };
});

it("local client: refuses subresources it does not serve instead of answering with the main object", async () => {
  const server = await startConformanceServer();
  const client = new LocalClient(server.api.context);
  await client.create(RESOURCES.deployments, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "scaled", namespace: "default" },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "scaled" } },
      template: {
        metadata: { labels: { app: "scaled" } },
        spec: { containers: [{ name: "c", image: "x" }] },
      },
    },
  });
  const get = await failure(client.get(RESOURCES.deployments, "default", "scaled", { subresource: "scale" }));
  expect(isBadRequest(get)).toBe(true);
  const patch = await failure(
    client.patch(
      RESOURCES.deployments,
      "default",
      "scaled",
      "merge",
      { spec: { replicas: 3 } },
      { subresource: "scale" },
    ),
  );
  expect(isBadRequest(patch)).toBe(true);
  expect((await client.get(RESOURCES.deployments, "default", "scaled")).spec).toMatchObject({ replicas: 2 });
  await server.close();
});
