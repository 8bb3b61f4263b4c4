import { runStoreConformance } from "../conformance.ts";
import { MemoryStore } from "./store.ts";

runStoreConformance("memory", async () => new MemoryStore());
