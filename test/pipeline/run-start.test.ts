import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { InputError } from "../../src/config/input-error.js";
import { checkStart, type StartOptions } from "../../src/pipeline/run-start.js";
import { git, gitRepo } from "./run-context.js";

const PRD = ".gantry/features/f/prd.json";
const made: string[] = [];
after(() => {
  for (const root of made) rmSync(root, { recursive: true, force: true });
});

function project(): { root: string; options: StartOptions; warnings: string[] } {
  const root = gitRepo({ [PRD]: JSON.stringify({ userStories: [{ id: "US-1", title: "one" }] }) });
  made.push(root);
  const warnings: string[] = [];
  const options: StartOptions = {
    root,
    feature: "f",
    prdPath: join(root, PRD),
    allowDirty: false,
    warn: (line) => warnings.push(line),
  };
  return { root, options, warnings };
}

/** The InputError the start check stops with, as its message. */
async function refusal(options: StartOptions): Promise<string> {
  const error = await checkStart(options).then(
    ({ git: repo }) => {
      repo.close();
      return undefined;
    },
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof InputError, `expected an InputError, got ${String(error)}`);
  return error.message;
}

describe("checkStart", () => {
  it("starts on a clean branch: no earlier run, no story worktrees, the repository open", async () => {
    const { options, warnings } = project();
    const started = await checkStart(options);
    try {
      assert.equal(started.previous, undefined);
      assert.equal(started.worktrees, 0);
      assert.equal(await started.git.branch(), "main");
      assert.deepEqual(warnings, []);
    } finally {
      started.git.close();
    }
  });

  it("refuses a detached HEAD: the stories need a branch to be committed to", async () => {
    const { root, options } = project();
    git(root, "checkout", "-q", "--detach");
    assert.match(await refusal(options), /HEAD is detached; check out a branch/);
  });

  it("refuses uncommitted changes, naming them, unless told to allow them", async () => {
    const { root, options } = project();
    writeFileSync(join(root, "README.md"), "changed\n");
    assert.match(await refusal(options), /uncommitted changes \(README\.md\); commit or stash them/);
    const allowed = await checkStart({ ...options, allowDirty: true });
    allowed.git.close();
  });
});
