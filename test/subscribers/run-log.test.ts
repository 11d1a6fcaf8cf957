import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createRunLogger } from "../../src/subscribers/run-log.js";

const lines = (dir: string) =>
  readFileSync(join(dir, "run.log"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("run log", () => {
  it("writes pino JSON lines: time, level, the run and the story, secrets redacted, errors with stack and cause", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-run-log-"));
    const logger = await createRunLogger(dir, "r-1", (line) => line.replaceAll("hunter22", "[redacted]"));
    logger.child({ storyId: "US-1" }).info({ tier: "fast" }, "hook on-story-start ran");
    const failure = new Error("subscriber threw", { cause: new Error("disk full") });
    logger.warn({ err: failure, token: "hunter22" }, "subscriber failed");
    logger.debug({ quiet: 1 }, "not written at the info level");
    const [first, second, ...rest] = lines(dir);
    assert.equal(rest.length, 0, "the debug line is below the level");
    assert.match(String(first?.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(
      [first?.level, first?.runId, first?.storyId, first?.tier, first?.msg],
      [30, "r-1", "US-1", "fast", "hook on-story-start ran"],
    );
    assert.equal(second?.level, 40);
    assert.equal(second?.token, "[redacted]");
    const err = second?.err as { message: string; stack: string; cause?: { message: string } };
    assert.match(err.message, /subscriber threw/);
    assert.match(err.stack, /subscriber threw\n\s+at /);
    assert.match(JSON.stringify(err), /disk full/, "the cause is kept");
    logger.flush();
    logger.error({}, "after the run's end");
    assert.equal(lines(dir).at(-1)?.msg, "after the run's end", "a line after flush opens the file again");
  });
});
