// `gantry validate` through the built CLI: it checks what `run` checks before it starts, so an "ok" means
// run would start.
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { baseConfig, gantry, makeProject, story } from "./harness.js";

describe("gantry validate (built CLI)", { concurrency: true, timeout: 120_000 }, () => {
  it("refuses an uncommitted .gitignore as run does, with the same words", async () => {
    const root = makeProject({ stories: [story("US-1")], plan: {} });
    const ok = await gantry(root, ["validate"]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /git: on branch \S+, nothing uncommitted/);
    appendFileSync(join(root, ".gitignore"), "dist/\n");
    const validate = await gantry(root, ["validate"]);
    const run = await gantry(root, ["run", "--feature", "f"]);
    for (const result of [validate, run]) {
      assert.equal(result.code, 2, result.stderr);
      assert.match(
        result.stderr,
        /working tree: uncommitted changes \(\.gitignore\); commit or stash them, or pass --allow-dirty \[GANTRY_E_REPO\]$/m,
      );
    }
    assert.doesNotMatch(validate.stdout, /^ok:/m);
  });

  it("outside a git repository says how to make one", async () => {
    const root = mkdtempSync(join(tmpdir(), "gantry-validate-nogit-"));
    mkdirSync(join(root, ".gantry"));
    writeFileSync(join(root, ".gantry/config.json"), JSON.stringify(baseConfig()));
    const result = await gantry(root, ["validate"]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(
      result.stderr,
      /git: not a git repository; .*`git init && git add -A && git commit -m start`/,
    );
  });

  it("names every config mistake at once, an unknown key with the key it probably means (not one already there)", async () => {
    const root = makeProject({ stories: [story("US-1")], plan: {} });
    const path = join(root, ".gantry/config.json");
    const config = JSON.parse(readFileSync(path, "utf8"));
    config.hoks = {};
    config.qualty = {};
    config.execution = { ...config.execution, rectify: { maxAtempts: 2 } };
    config.verify = { suppressions: "some" };
    writeFileSync(path, JSON.stringify(config));
    const result = await gantry(root, ["validate"]);
    assert.equal(result.code, 2, result.stderr);
    const lines = result.stderr.trim().split("\n").sort();
    assert.deepEqual(lines, [
      'gantry: .gantry/config.json: (top level): unknown key "hoks"; did you mean "hooks"? [GANTRY_E_CONFIG]',
      'gantry: .gantry/config.json: (top level): unknown key "qualty"; expected one of $schema, agent, quality, execution, verify, routing, gates, hooks, reporters, plugins, interaction, readiness, review, plan [GANTRY_E_CONFIG]',
      'gantry: .gantry/config.json: execution.rectify: unknown key "maxAtempts"; did you mean "maxAttempts"? [GANTRY_E_CONFIG]',
      'gantry: .gantry/config.json: verify.suppressions: Invalid option: expected one of "reasoned"|"none" [GANTRY_E_CONFIG]',
    ]);
  });
});
