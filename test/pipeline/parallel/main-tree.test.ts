import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { describe, it } from "node:test";
import { ConfigSchema } from "../../../src/config/schema.js";
import { workerCount } from "../../../src/pipeline/parallel/main-tree.js";

const config = (execution: Record<string, unknown> = {}) =>
  ConfigSchema.parse({ agent: { default: "command", command: { run: "true" } }, execution });

describe("workerCount", () => {
  it("takes --parallel over execution.parallel, whose default is 1 (one story at a time)", () => {
    assert.equal(workerCount(undefined, config()), 1);
    assert.equal(workerCount(undefined, config({ parallel: 3 })), 3);
    assert.equal(workerCount(2, config({ parallel: 3 })), 2);
  });

  it("0 is one worker a core, at most execution.parallelMax", () => {
    const cores = availableParallelism();
    assert.equal(workerCount(0, config()), Math.min(cores, 8));
    assert.equal(workerCount(0, config({ parallelMax: 1 })), 1);
    assert.equal(workerCount(undefined, config({ parallel: 0, parallelMax: 64 })), cores);
  });
});
