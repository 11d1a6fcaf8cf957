import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { InputError } from "../../src/config/input-error.js";
import { runGit } from "../../src/git/exec.js";
import { runErrorCode } from "../../src/pipeline/run-error.js";

describe("runErrorCode", () => {
  it("names bad input, a failed git command, and anything else as INTERNAL", async () => {
    assert.equal(runErrorCode(new InputError("prd.json", "userStories", "an array")), "BAD_INPUT");
    const notARepo = mkdtempSync(join(tmpdir(), "gantry-not-a-repo-"));
    const gitFailure = await runGit(notARepo, ["rev-parse", "HEAD"]).then(
      () => assert.fail("git rev-parse succeeded outside a repository"),
      (error: unknown) => error,
    );
    assert.equal(runErrorCode(gitFailure), "GIT");
    assert.equal(runErrorCode(new TypeError("x is undefined")), "INTERNAL");
    assert.equal(runErrorCode("thrown string"), "INTERNAL");
  });
});
