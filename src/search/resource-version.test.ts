import { describe, expect, it } from "vitest";
import {
  decodeContinue,
  encodeContinue,
  MultiClusterVersion,
  memberResourceVersion,
} from "./resource-version.ts";

describe("multi-cluster resourceVersion", () => {
  it("encodes upstream's way: sorted JSON in unpadded base64url", () => {
    const rv = MultiClusterVersion.empty();
    rv.set("member2", "20");
    rv.set("member1", "10");
    const text = rv.toString();
    expect(text).not.toContain("=");
    expect(Buffer.from(text, "base64url").toString()).toBe('{"member1":"10","member2":"20"}');
    expect(MultiClusterVersion.parse(text).get("member2")).toBe("20");
  });

  it('reads "" as no clusters and "0" as any version of every cluster', () => {
    expect(MultiClusterVersion.parse("").toString()).toBe("");
    const zero = MultiClusterVersion.parse("0");
    expect(zero.get("anything")).toBe("0");
    expect(zero.toString()).toBe("0");
    zero.set("member1", "5");
    expect(zero.get("member1")).toBe("5");
  });

  it.each(["not base64!", "bm90IGpzb24", Buffer.from("[1,2]").toString("base64url")])(
    "reads %s as empty, as upstream does",
    (text) => {
      expect(MultiClusterVersion.parse(text).toString()).toBe("");
    },
  );

  it("gives a member back its own version from a multi-cluster one, and leaves a member's alone", () => {
    const rv = MultiClusterVersion.empty();
    rv.set("member1", "42");
    expect(memberResourceVersion("member1", rv.toString())).toBe("42");
    expect(memberResourceVersion("member2", rv.toString())).toBe("");
    expect(memberResourceVersion("member1", "1234")).toBe("1234");
    expect(memberResourceVersion("member1", "0")).toBe("0");
  });
});

describe("continue token", () => {
  it("round-trips with upstream's field names", () => {
    const token = encodeContinue({ rv: "abc", cluster: "member2", continue: "ns/name" });
    expect(JSON.parse(Buffer.from(token, "base64url").toString())).toEqual({
      rv: "abc",
      cluster: "member2",
      continue: "ns/name",
    });
    expect(decodeContinue(token)).toEqual({ rv: "abc", cluster: "member2", continue: "ns/name" });
  });

  it("is empty when no cluster is left, and undefined when it is not ours", () => {
    expect(encodeContinue({ rv: "abc", cluster: "", continue: "" })).toBe("");
    expect(decodeContinue("garbage")).toBeUndefined();
  });
});
