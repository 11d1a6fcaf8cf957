import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createEventBus } from "../../src/bus/event-bus.js";
import { ConfigSchema } from "../../src/config/schema.js";
import { openRepo } from "../../src/git/repo.js";
import { VerdictBook } from "../../src/ledger/book.js";
import { runReview } from "../../src/review/orchestrator.js";
import { silentLogger } from "../../src/util/logger.js";
import type { Workspace } from "../../src/verification/workspace.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-review-concurrency-")));
after(() => rmSync(root, { recursive: true, force: true }));

/** A check that notes when it started and ended (in the ignored folder `t/`, so the tree stays as judged). */
const timed = (name: string, exit = 0) =>
  `node -e "require('fs').writeFileSync('t/${name}.start', String(Date.now()))" && sleep 0.4 && ` +
  `node -e "require('fs').writeFileSync('t/${name}.end', String(Date.now()))"; exit ${exit}`;

describe("review checks", () => {
  it("run at the same time: each started before the other ended; results keep their order", async () => {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8" });
    git("init", "-q", "-b", "main");
    writeFileSync(join(root, ".gitignore"), "t/\n");
    execFileSync("mkdir", ["-p", join(root, "t")]);
    git("add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
    const run = {
      root,
      config: ConfigSchema.parse({
        quality: { commands: { typecheck: timed("typecheck", 1), lint: timed("lint") }, timeoutSeconds: 30 },
      }),
      signal: new AbortController().signal,
      bus: createEventBus({ runId: "r" }),
      verdicts: new VerdictBook("f", randomBytes(32)),
      git: await openRepo(root),
      logger: silentLogger,
    } satisfies Workspace;
    try {
      const result = await runReview(run, "US-1", 1);
      const at = (name: string) => Number(readFileSync(join(root, "t", name), "utf8"));
      assert.ok(at("typecheck.start") < at("lint.end"), "typecheck started before lint ended");
      assert.ok(at("lint.start") < at("typecheck.end"), "lint started before typecheck ended");
      assert.deepEqual(
        result.checks.map((c) => [c.name, c.success]),
        [
          ["typecheck", false],
          ["lint", true],
        ],
      );
      assert.equal(result.success, false);
    } finally {
      run.git.close();
    }
  });
});
