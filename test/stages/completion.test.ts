import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { createEventBus } from "../../src/bus/event-bus.js";
import { ConfigSchema } from "../../src/config/schema.js";
import { openRepo } from "../../src/git/repo.js";
import { VerdictBook } from "../../src/ledger/book.js";
import type { LedgerEntry, Verdict } from "../../src/model/ledger.js";
import { loadPrd } from "../../src/prd/load.js";
import { StoryStore } from "../../src/prd/story-store.js";
import { RunState } from "../../src/runs/run-state.js";
import { commitSubject, completionStage } from "../../src/stages/completion.js";
import type { RunContext, StoryContext } from "../../src/stages/context.js";
import { guardSession } from "../../src/stages/session-guard.js";
import { silentLogger } from "../../src/util/logger.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
const write = (root: string, path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
const closers: (() => void)[] = [];
after(() => {
  for (const close of closers) close();
});

/** A repository with one commit, a PRD of two stories, and a story context for US-1 at its base. */
async function setup(): Promise<{ ctx: StoryContext; root: string; book: VerdictBook; base: string }> {
  const root = mkdtempSync(join(tmpdir(), "gantry-completion-"));
  write(root, "src/a.js", "export const a = 1;\n");
  write(root, ".gitignore", ".gantry/runs/\n*.local.js\n");
  const prd = {
    feature: "f",
    userStories: ["US-1", "US-2"].map((id) => ({
      id,
      title: id,
      acceptanceCriteria: ["works"],
      status: "pending",
    })),
  };
  write(root, ".gantry/features/f/prd.json", JSON.stringify(prd, null, 2));
  write(root, ".gantry/config.json", "{}\n");
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.email", "t@example.com");
  git(root, "config", "user.name", "t");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "base");
  const runDir = join(root, ".gantry", "runs", "r1");
  mkdirSync(runDir, { recursive: true });
  const prdFile = join(root, ".gantry/features/f/prd.json");
  const stories = new StoryStore(prdFile, loadPrd(prdFile));
  const book = new VerdictBook("f", randomBytes(32));
  const repo = await openRepo(root);
  closers.push(() => repo.close());
  const run = {
    runId: "r1",
    feature: "f",
    root,
    runDir,
    config: ConfigSchema.parse({}),
    mandatoryGates: ["verify", "review"],
    bus: createEventBus({ runId: "r1" }),
    git: repo,
    stories,
    verdicts: book,
    state: new RunState(runDir, { runId: "r1", feature: "f" }),
  } as unknown as RunContext;
  const story = stories.get("US-1");
  assert.ok(story);
  const base = git(root, "rev-parse", "HEAD");
  const ctx: StoryContext = {
    run,
    story,
    logger: silentLogger,
    tier: "fast",
    pass: 1,
    baseSha: base,
    failureHistory: [],
    rectifyAttempts: 0,
    autofixAttempts: 0,
    agentCalls: 1,
    costUsd: 0.5,
  };
  return { ctx, root, book, base };
}

/** `work` done as an agent session would be, between the session guard's start and finish. */
async function inSession(ctx: StoryContext, work: () => void): Promise<void> {
  const guard = await guardSession(ctx, "implement");
  work();
  await guard.finish();
}

async function verdict(ctx: StoryContext, book: VerdictBook, gate: string, v: Verdict, storyId = "US-1") {
  const judged = await ctx.run.git.judge();
  const entry: LedgerEntry = {
    v: 1,
    runId: "r1",
    feature: "f",
    storyId,
    gate,
    verdict: v,
    sha: judged.sha,
    tree: judged.tree,
    at: new Date().toISOString(),
    attempt: 1,
    detail: {},
  };
  book.add(entry);
  return judged;
}

describe("completion", { concurrency: true }, () => {
  it("commits exactly the judged tree when every mandatory gate passed on it, and marks the story passed", async () => {
    const { ctx, root, book, base } = await setup();
    write(root, "src/b.js", "export const b = 2;\n");
    const judged = await verdict(ctx, book, "verify", "pass");
    await verdict(ctx, book, "review", "not-applicable");
    write(root, ".gantry/config.json", '{ "gates": { "mandatory": [] } }\n');
    assert.deepEqual(await completionStage.execute(ctx), { action: "continue" });
    assert.equal(git(root, "rev-parse", "HEAD^"), base);
    assert.equal(git(root, "show", "HEAD:src/b.js"), "export const b = 2;");
    assert.ok(await ctx.run.git.sameContent("HEAD", judged.tree), "the commit holds the judged tree");
    assert.match(git(root, "show", "HEAD:.gantry/features/f/prd.json"), /"status": "passed"/);
    assert.equal(
      git(root, "show", "HEAD:.gantry/config.json"),
      "{}",
      "an edit to the config is never committed",
    );
    assert.equal(
      git(root, "status", "--porcelain"),
      "M .gantry/config.json",
      "the user's index follows the new commit",
    );
    assert.equal(ctx.run.state.data.committing, undefined);
    assert.equal(git(root, "log", "-1", "--format=%s"), "gantry(US-1): US-1");
  });

  it("refuses when a mandatory gate has no verdict, a failing latest verdict, or only another story's pass", async () => {
    const { ctx, root, book, base } = await setup();
    write(root, "src/b.js", "export const b = 2;\n");
    let result = await completionStage.execute(ctx);
    assert.match(
      (result as { reason: string }).reason,
      /^not every mandatory gate passed on this tree: verify: no verdict for this tree; review: no verdict for this tree$/,
      "every unmet gate is named",
    );
    await verdict(ctx, book, "verify", "pass");
    result = await completionStage.execute(ctx);
    assert.equal(result.action, "fail");
    assert.match((result as { reason: string }).reason, /review: no verdict for this tree/);
    await verdict(ctx, book, "review", "pass", "US-2");
    result = await completionStage.execute(ctx);
    assert.match((result as { reason: string }).reason, /review: no verdict for this tree/);
    await verdict(ctx, book, "review", "pass");
    await verdict(ctx, book, "verify", "fail");
    result = await completionStage.execute(ctx);
    assert.match((result as { reason: string }).reason, /verify: fail/);
    assert.equal(git(root, "rev-parse", "HEAD"), base, "nothing was committed");
    assert.equal(ctx.run.stories.status("US-1"), "pending");
  });

  it("a pass on an earlier tree does not count for a later edit", async () => {
    const { ctx, root, book, base } = await setup();
    write(root, "src/b.js", "export const b = 2;\n");
    await verdict(ctx, book, "verify", "pass");
    await verdict(ctx, book, "review", "pass");
    write(root, "src/b.js", "export const b = 3;\n");
    const result = await completionStage.execute(ctx);
    assert.equal(result.action, "fail");
    assert.match(
      (result as { reason: string }).reason,
      /verify: no verdict for this tree \(last: pass on tree/,
    );
    assert.equal(git(root, "rev-parse", "HEAD"), base);
  });

  it("an empty change is not a story done, whatever the verdicts", async () => {
    const { ctx, book } = await setup();
    await verdict(ctx, book, "verify", "pass");
    await verdict(ctx, book, "review", "pass");
    const result = await completionStage.execute(ctx);
    assert.equal(result.action, "fail");
    assert.match((result as { reason: string }).reason, /changed nothing/);
  });

  it("ignored source files the story made fail it and are moved into the run directory", async () => {
    const { ctx, root, book } = await setup();
    const session = await guardSession(ctx, "implement");
    write(root, "src/b.js", 'export { b } from "./impl.local.js";\n');
    write(root, "src/impl.local.js", "export const b = 2;\n");
    assert.equal(await session.finish(), undefined);
    await verdict(ctx, book, "verify", "pass");
    await verdict(ctx, book, "review", "pass");
    const result = await completionStage.execute(ctx);
    assert.equal(result.action, "fail");
    assert.equal(
      (result as { reason: string }).reason,
      "the story's sessions created ignored source files that its commit would not carry: src/impl.local.js; moved to .gantry/runs/r1/set-aside",
    );
    assert.ok(!existsSync(join(root, "src/impl.local.js")));
    assert.equal(
      readFileSync(join(ctx.run.runDir, "set-aside/src/impl.local.js"), "utf8"),
      "export const b = 2;\n",
    );
  });

  it("a branch moved by someone else after the judge fails the story and leaves the branch where they put it", async () => {
    const { ctx, root, book } = await setup();
    write(root, "src/b.js", "export const b = 2;\n");
    const judged = await verdict(ctx, book, "verify", "pass");
    await verdict(ctx, book, "review", "pass");
    // Someone commits between the verdicts and the commit: the compare-and-swap must refuse.
    const other = git(
      root,
      "commit-tree",
      git(root, "rev-parse", "HEAD^{tree}"),
      "-p",
      judged.sha,
      "-m",
      "other",
    );
    git(root, "update-ref", "HEAD", other);
    await assert.rejects(
      () => ctx.run.git.commitJudged(judged, "gantry(US-1): x"),
      /git update-ref \(compare-and-swap\) failed.*but expected/,
    );
    assert.equal(git(root, "rev-parse", "HEAD"), other);
  });
});

describe("completion when another git holds the user's index", () => {
  it("pauses the run with HEAD, the index and the story as they were; the next commit lands once the lock is gone", async () => {
    const { ctx, root, book } = await setup();
    write(root, "src/b.js", "export const b = 2;\n");
    await verdict(ctx, book, "verify", "pass");
    await verdict(ctx, book, "review", "pass");
    const head = git(root, "rev-parse", "HEAD");
    writeFileSync(join(root, ".git", "index.lock"), "");
    process.env.GANTRY_INDEX_LOCK_WAIT_MS = "200";
    try {
      const result = await completionStage.execute(ctx);
      assert.equal(result.action, "pause");
      assert.match((result as { reason: string }).reason, /index is locked .*nothing was committed/);
    } finally {
      delete process.env.GANTRY_INDEX_LOCK_WAIT_MS;
      rmSync(join(root, ".git", "index.lock"), { force: true });
    }
    assert.equal(git(root, "rev-parse", "HEAD"), head);
    assert.equal(git(root, "diff", "--cached", "--name-only"), "");
    assert.equal(ctx.run.stories.get("US-1")?.status, "in-progress");
    assert.deepEqual(await completionStage.execute(ctx), { action: "continue" });
    assert.equal(git(root, "show", "HEAD:src/b.js"), "export const b = 2;");
    assert.equal(git(root, "status", "--porcelain", "--", "src"), "");
  });
});

describe("completion: what the story record and the run state keep", { concurrency: true }, () => {
  it("records the pass's attempt, the cost rounded to a millionth of a dollar, and clears an earlier failure", async () => {
    const { ctx, root, book } = await setup();
    ctx.run.stories.update("US-1", { failureReason: "an earlier pass failed" });
    ctx.pass = 3;
    ctx.costUsd = 0.12345649;
    write(root, "src/b.js", "export const b = 2;\n");
    const judged = await verdict(ctx, book, "verify", "pass");
    await verdict(ctx, book, "review", "pass");
    // The run state names the story, subject and tree before the commit: a crash in between can resume.
    const inFlight: unknown[] = [];
    const realCommit = ctx.run.git.commitJudged;
    ctx.run.git = Object.create(ctx.run.git, {
      commitJudged: {
        value: (j: typeof judged, subject: string) => {
          inFlight.push({ ...ctx.run.state.data.committing });
          return realCommit(j, subject);
        },
      },
    });
    assert.deepEqual(await completionStage.execute(ctx), { action: "continue" });
    const committed = JSON.parse(git(root, "show", "HEAD:.gantry/features/f/prd.json")).userStories[0];
    assert.equal(committed.status, "passed");
    assert.equal(committed.attempts, 3);
    assert.equal(committed.costUsd, 0.123456);
    assert.equal(committed.failureReason, undefined, "the earlier failure reason is gone");
    assert.deepEqual(inFlight, [{ storyId: "US-1", subject: "gantry(US-1): US-1", tree: judged.tree }]);
    assert.equal(ctx.run.state.data.committing, undefined);
  });

  it("a commit that does not land as judged fails the story, puts it back in progress and forgets the commit", async () => {
    const { ctx, root, book } = await setup();
    write(root, "src/b.js", "export const b = 2;\n");
    const judged = await verdict(ctx, book, "verify", "pass");
    await verdict(ctx, book, "review", "pass");
    let other = "";
    const realCommit = ctx.run.git.commitJudged;
    ctx.run.git = Object.create(ctx.run.git, {
      commitJudged: {
        value: (j: typeof judged, subject: string) => {
          // Someone else commits on the branch between the judge and gantry's commit.
          other = git(root, "commit-tree", git(root, "rev-parse", "HEAD^{tree}"), "-p", j.sha, "-m", "other");
          git(root, "update-ref", "HEAD", other);
          return realCommit(j, subject);
        },
      },
    });
    const result = await completionStage.execute(ctx);
    assert.equal(result.action, "fail");
    assert.match((result as { reason: string }).reason, /^the commit did not land as judged: .*update-ref/);
    assert.equal(git(root, "rev-parse", "HEAD"), other, "the branch stays where the other commit put it");
    assert.equal(ctx.run.stories.status("US-1"), "in-progress");
    assert.match(readFileSync(join(root, ".gantry/features/f/prd.json"), "utf8"), /"status": "in-progress"/);
    assert.equal(ctx.run.state.data.committing, undefined);
  });

  it("names at most ten ignored files in the reason, with the count, and moves them all", async () => {
    const { ctx, root, book } = await setup();
    write(root, "src/b.js", "export const b = 2;\n");
    const names = Array.from({ length: 12 }, (_, i) => `src/part${String(i).padStart(2, "0")}.local.js`);
    const session = await guardSession(ctx, "implement");
    for (const name of names) write(root, name, "export {};\n");
    await session.finish();
    await verdict(ctx, book, "verify", "pass");
    await verdict(ctx, book, "review", "pass");
    const result = await completionStage.execute(ctx);
    assert.equal(result.action, "fail");
    const reason = (result as { reason: string }).reason;
    assert.ok(
      reason.includes(`: ${names.slice(0, 10).join(", ")}, … (12); moved to .gantry/runs/r1/set-aside`),
      reason,
    );
    for (const name of names) {
      assert.ok(!existsSync(join(root, name)), `${name} left in the worktree`);
      assert.ok(existsSync(join(ctx.run.runDir, "set-aside", name)), `${name} not set aside`);
    }
    // Ten are all named, without a count.
    const again10 = await guardSession(ctx, "rectify");
    for (const name of names.slice(0, 10)) write(root, name.replace("part", "again"), "export {};\n");
    await again10.finish();
    const again = ((await completionStage.execute(ctx)) as { reason: string }).reason;
    assert.ok(
      again.endsWith(
        `: ${names
          .slice(0, 10)
          .map((n) => n.replace("part", "again"))
          .join(", ")}; moved to .gantry/runs/r1/set-aside`,
      ),
      again,
    );
  });
});

describe("ignored files gantry's own commands made", () => {
  it("are not blamed on the sessions: a file a test run wrote between sessions does not fail the story", async () => {
    const { ctx, root, book } = await setup();
    await inSession(ctx, () => write(root, "src/b.js", 'export { b } from "./impl.local.js";\n'));
    // What a test command does after the session: it generates an ignored source file the code imports.
    write(root, "src/impl.local.js", "export const b = 2;\n");
    await verdict(ctx, book, "verify", "pass");
    await verdict(ctx, book, "review", "pass");
    assert.deepEqual(await completionStage.execute(ctx), { action: "continue" });
    assert.ok(existsSync(join(root, "src/impl.local.js")));
  });
});

describe("the completion stage", () => {
  it("always runs, under its own name (the name stage events and retry targets use)", async () => {
    assert.equal(completionStage.name, "completion");
    assert.equal(completionStage.enabled({} as StoryContext), true);
  });

  it("ignored source files written outside the agent's sessions (a test command's report) are not the story's", async () => {
    const { ctx, root, book } = await setup();
    write(root, "src/b.js", "export const b = 2;\n");
    write(root, "src/impl.local.js", "export const b = 2;\n");
    await verdict(ctx, book, "verify", "pass");
    await verdict(ctx, book, "review", "pass");
    assert.deepEqual(await completionStage.execute(ctx), { action: "continue" });
    assert.equal(git(root, "show", "HEAD:src/b.js"), "export const b = 2;");
  });
});

describe("commitSubject", () => {
  it("keeps one line of plain text: escape codes dropped, control characters and line breaks become spaces", () => {
    assert.equal(
      commitSubject("US-1", "Add \u001b[31mred\u001b[0m\nnumbers\u0007\u009b"),
      "gantry(US-1): Add red numbers",
    );
    assert.equal(commitSubject("US-2", "  plain   title "), "gantry(US-2): plain title");
  });
});
