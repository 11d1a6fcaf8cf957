import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { InputError } from "../../src/config/input-error.js";
import { runGit } from "../../src/git/exec.js";
import { ERRORS } from "../../src/model/errors.js";
import { errorCodeOf } from "../../src/pipeline/run-error.js";

describe("errorCodeOf", () => {
  it("names bad input by its own code, a failed git command GIT, and anything else INTERNAL", async () => {
    const bad = new InputError("prd.json", "userStories", "an array", "GANTRY_E_PRD");
    assert.equal(errorCodeOf(bad), "GANTRY_E_PRD");
    assert.equal(bad.exitCode, 2);
    const notARepo = mkdtempSync(join(tmpdir(), "gantry-not-a-repo-"));
    const gitFailure = await runGit(notARepo, ["rev-parse", "HEAD"]).then(
      () => assert.fail("git rev-parse succeeded outside a repository"),
      (error: unknown) => error,
    );
    assert.equal(errorCodeOf(gitFailure), "GANTRY_E_GIT");
    assert.equal(errorCodeOf(new TypeError("x is undefined")), "GANTRY_E_INTERNAL");
    assert.equal(errorCodeOf("thrown string"), "GANTRY_E_INTERNAL");
  });

  it("gives every code a summary and the exit code 2 or 70", () => {
    for (const [code, kind] of Object.entries(ERRORS)) {
      assert.match(code, /^GANTRY_E_[A-Z_]+$/);
      assert.ok(kind.summary.length > 10, code);
      assert.ok(kind.exit === 2 || kind.exit === 70, code);
    }
  });
});
