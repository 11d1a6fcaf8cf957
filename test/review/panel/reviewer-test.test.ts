import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createEventBus } from "../../../src/bus/event-bus.js";
import { ConfigSchema } from "../../../src/config/schema.js";
import { openRepo } from "../../../src/git/repo.js";
import { VerdictBook } from "../../../src/ledger/book.js";
import type { PanelFinding } from "../../../src/model/review.js";
import { runReviewerTests } from "../../../src/review/panel/reviewer-test.js";
import { silentLogger } from "../../../src/util/logger.js";
import { git, write } from "../../support/fixture-repo.js";

// Under node's test runner NODE_TEST_CONTEXT is set; a `node --test` started here would report to it instead.
delete process.env.NODE_TEST_CONTEXT;

const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-reviewer-test-")));
after(() => {
  rmSync(root, { recursive: true, force: true });
});

const failing = `import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { four } from "../src/four.js";\ntest("four is 4", () => assert.equal(four(), 4));\n`;

describe("a reviewer's test", () => {
  it("runs on the story's tree and at base in scratch checkouts, never writing through the story's links", async () => {
    write(root, "src/four.js", "export const four = () => 4;\n");
    write(root, "package.json", '{ "type": "module" }\n');
    git(root, "init", "-q", "-b", "main");
    git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A");
    git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "base");
    const baseSha = git(root, "rev-parse", "HEAD");
    // The story's tree: four() broken, and evil/ an absolute link back into the user's tree. The judge
    // refuses such a link in a working tree; the tree is built with plumbing to show the write guard holds.
    mkdirSync(join(root, "lib"));
    const index = join(root, ".git", "story-index");
    const plumb = (args: string[], input?: string) =>
      execFileSync("git", args, {
        cwd: root,
        env: { ...process.env, GIT_INDEX_FILE: index },
        input,
        encoding: "utf8",
      }).trim();
    plumb(["read-tree", "HEAD"]);
    const broken = plumb(["hash-object", "-w", "--stdin"], "export const four = () => 5;\n");
    const link = plumb(["hash-object", "-w", "--stdin"], join(root, "lib"));
    plumb(["update-index", "--add", "--cacheinfo", `100644,${broken},src/four.js`]);
    plumb(["update-index", "--add", "--cacheinfo", `120000,${link},evil`]);
    const tree = plumb(["write-tree"]);
    const repo = await openRepo(root);
    const finding = (file: string): PanelFinding => ({
      reviewer: "a",
      file: "src/four.js",
      line: 1,
      severity: "blocking",
      text: "four returns 5",
      test: { file, name: "four is 4", content: failing },
    });
    const good = finding("test/review-four.test.js");
    const viaLink = finding("evil/review-four.test.js");
    const escaping = finding("../review-four.test.js");
    const outcomes = await runReviewerTests({
      run: {
        root,
        config: ConfigSchema.parse({
          quality: {
            commands: { testScoped: "node --test --test-reporter=spec {{files}}" },
            timeoutSeconds: 60,
          },
        }),
        signal: new AbortController().signal,
        bus: createEventBus({ runId: "run-1" }),
        verdicts: new VerdictBook("f", randomBytes(32)),
        git: repo,
        logger: silentLogger,
      },
      baseSha,
      tree,
      findings: [good, viaLink, escaping],
    });
    assert.deepEqual(outcomes.get(good), {
      confirmed: true,
      said: "it fails on the story's tree; at base it is PASS",
    });
    assert.match(
      outcomes.get(viaLink)?.said ?? "",
      /not run: evil\/review-four\.test\.js leads outside the checkout/,
    );
    assert.match(
      outcomes.get(escaping)?.said ?? "",
      /not run: its test path "\.\.\/review-four\.test\.js" leaves the project/,
    );
    assert.equal(existsSync(join(root, "lib/review-four.test.js")), false);
    assert.equal(existsSync(join(root, "test/review-four.test.js")), false, "the user's tree is not touched");
    assert.equal(git(root, "worktree", "list").split("\n").length, 1, "the scratch checkouts are removed");
  });
});
