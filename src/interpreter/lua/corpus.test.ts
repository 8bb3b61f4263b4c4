/**
 * Upstream's third-party customizations and their test data, run through our engine with
 * upstream's own scripts: the engine is compatible with upstream's (corpus.ts has the rules).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCase, loadCorpus } from "./corpus.ts";
import { LuaEngine } from "./engine.ts";

const cases = loadCorpus();
let engine: LuaEngine;

beforeAll(async () => {
  engine = await LuaEngine.create();
});
afterAll(() => engine.close());

describe("upstream third-party customizations corpus", () => {
  it("has the corpus", () => {
    expect(cases.length).toBeGreaterThan(500);
  });

  it.each(cases.map((c) => [c.title, c] as const))("%s", (_title, c) => {
    checkCase(engine, c);
  });
});
