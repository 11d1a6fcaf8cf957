import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { createEventBus } from "../../src/bus/event-bus.js";
import { parseConfig } from "../../src/config/loader.js";
import type { GitRepo } from "../../src/git/git-repo.js";
import { VerdictBook } from "../../src/ledger/book.js";
import { decideSandbox, sandboxSupport } from "../../src/process/sandbox.js";
import { runMechanicalFixes } from "../../src/review/autofix.js";
import { silentLogger } from "../../src/util/logger.js";
import { runQualityCommand } from "../../src/verification/quality-command.js";
import type { Workspace } from "../../src/verification/workspace.js";

const support = await sandboxSupport();
const noBwrap = support.works ? false : `bwrap does not work here: ${support.reason}`;
const root = mkdtempSync(join(tmpdir(), "gantry-quality-command-"));
after(() => rmSync(root, { recursive: true, force: true }));

describe("runQualityCommand under the run's sandbox", { skip: noBwrap }, async () => {
  mkdirSync(join(root, ".git", "hooks"), { recursive: true });
  const decided = await decideSandbox("bwrap", root);
  const run: Workspace = {
    root,
    config: parseConfig("config.json", {
      quality: { commands: { lintFix: "touch fixed.txt && touch .git/hooks/post-commit" } },
    }),
    signal: new AbortController().signal,
    bus: createEventBus({ runId: "r" }),
    verdicts: new VerdictBook("f", randomBytes(32)),
    git: {} as GitRepo,
    logger: silentLogger,
    ...(decided.kind === "sandboxed" ? { sandbox: decided.wrapper } : {}),
    ...(decided.kind === "sandboxed" && decided.judging
      ? { judging: { programs: decided.judging, repository: root } }
      : {}),
  };
  const tamper = "touch src-edit.txt && touch .git/hooks/pre-commit";

  test("a command that changes code (a fixer) runs in it: the tree is writable, .git is not", async () => {
    const result = await runQualityCommand(run, tamper, undefined, { changesCode: true });
    assert.notEqual(result.exitCode, 0);
    assert.match(result.output, /Read-only file system/);
    assert.equal(existsSync(join(root, "src-edit.txt")), true);
    assert.equal(existsSync(join(root, ".git", "hooks", "pre-commit")), false);
  });

  test("the mechanical fixers (lintFix, formatFix) run in it", async () => {
    assert.deepEqual(await runMechanicalFixes(run, "US-1"), ["lintFix"]);
    assert.equal(existsSync(join(root, "fixed.txt")), true);
    assert.equal(existsSync(join(root, ".git", "hooks", "post-commit")), false);
  });

  test("a check that only judges (tests, lint) may write the tree and .git, and nothing it wrote survives it", async () => {
    assert.ok(run.judging, `judging commands have their sandbox here: ${JSON.stringify(decided)}`);
    const result = await runQualityCommand(run, `${tamper} && touch judged.txt && test -e judged.txt`);
    assert.equal(result.exitCode, 0, result.output);
    assert.equal(existsSync(join(root, ".git", "hooks", "pre-commit")), false);
    assert.equal(existsSync(join(root, "judged.txt")), false);
  });
});
