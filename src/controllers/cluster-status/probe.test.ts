import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpClient } from "../../client/http.ts";
import type { MemberConnection } from "../../cluster/connections.ts";
import { type ServedMemberCluster, serveMemberCluster } from "../../member-sim/cluster.ts";
import { apiEnablements } from "./probe.ts";

describe("API enablements from a member's discovery", () => {
  let member: ServedMemberCluster;
  let client: HttpClient;
  beforeAll(async () => {
    member = await serveMemberCluster({ name: "probe", nodes: 0, port: 0 });
    client = new HttpClient(member.connection);
  });
  afterAll(async () => {
    client?.close();
    await member?.stop();
  });

  /** A connection that records its requests; `legacyOnly` answers as a member without aggregated discovery would. */
  const connection = (legacyOnly: boolean) => {
    const paths: string[] = [];
    const conn: MemberConnection = {
      client,
      getRaw: (path, _timeoutMs, accept) => {
        paths.push(path);
        return client.getRaw(path, legacyOnly ? undefined : accept);
      },
    };
    return { conn, paths };
  };

  it("reads aggregated discovery in two requests, with what legacy discovery gives in one per group version", async () => {
    const aggregated = connection(false);
    const legacy = connection(true);
    const a = await apiEnablements(aggregated.conn, 5_000);
    const l = await apiEnablements(legacy.conn, 5_000);
    expect(aggregated.paths.sort()).toEqual(["/api", "/apis"]);
    expect(legacy.paths.length).toBeGreaterThan(10);
    expect(a.complete).toBe(true);
    expect(l.complete).toBe(true);
    expect(a.enablements).toEqual(l.enablements);
    expect(a.enablements.find((e) => e.groupVersion === "apps/v1")?.resources).toEqual(
      expect.arrayContaining([{ name: "deployments", kind: "Deployment" }]),
    );
    // No subresources among the resources.
    expect(a.enablements.flatMap((e) => e.resources).some((r) => r.name.includes("/"))).toBe(false);
  });
});
