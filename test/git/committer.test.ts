import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { identityProblem } from "../../src/git/committer.js";
import { captureSettings } from "../../src/git/settings.js";
import { git, write } from "../support/fixture-repo.js";

describe("the commit identity check", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-committer-")));
  after(() => rmSync(root, { recursive: true, force: true }));
  write(root, "a.txt", "a\n");
  git(root, "init", "-q", "-b", "main");

  it("says what to set when git has no name or email, with the run's settings (no global config of the user)", async () => {
    const settings = await captureSettings(root, join(root, ".git"));
    try {
      const env = {
        ...settings.env,
        GIT_CONFIG_GLOBAL: "/dev/null",
        EMAIL: "",
        GIT_AUTHOR_EMAIL: "",
        GIT_COMMITTER_EMAIL: "",
      };
      git(root, "config", "user.useConfigOnly", "true");
      const problem = await identityProblem(root, env);
      assert.match(
        problem ?? "",
        /git has no identity to commit with .*; set user.name and user.email with git config/,
      );
      git(root, "config", "user.name", "Main Person");
      git(root, "config", "user.email", "main@example.com");
      assert.equal(await identityProblem(root, env), undefined);
    } finally {
      settings.dispose();
    }
  });
});
