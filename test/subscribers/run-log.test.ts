import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createRunLogger, logLine } from "../../src/subscribers/run-log.js";

describe("run log", () => {
  it("writes one text line per entry: time, level, message, then key=value with strings quoted when they must be", () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-run-log-"));
    const logger = createRunLogger(dir, "r", (line) => line.replaceAll("hunter22", "[redacted]"));
    logger.info({ storyId: "US-1", tier: "fast", n: 2, ok: true, gone: undefined }, "story:start");
    logger.warn({ reason: "two words\nand a line break", token: "hunter22" }, "subscriber failed");
    logger.debug({ quiet: 1 }, "not written at the info level");
    const lines = readFileSync(join(dir, "run.log"), "utf8").split("\n");
    assert.equal(lines.length, 3, "two lines and the final newline");
    assert.match(
      lines[0] as string,
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO {2}story:start {2}storyId=US-1 tier=fast n=2 ok=true$/,
    );
    assert.match(
      lines[1] as string,
      /^\S+ WARN {2}subscriber failed {2}reason="two words\\nand a line break" token=\[redacted\]$/,
    );
    assert.equal(logLine({ detail: { a: [1, 2] } }), 'detail={"a":[1,2]}');
    logger.flush();
    logger.error({}, "after the run's end");
    assert.match(readFileSync(join(dir, "run.log"), "utf8"), /ERROR after the run's end\n$/);
  });
});
