import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createPrivateGit, type PrivateGit } from "../../src/git/hermetic.js";
import { MAX_INDEX_BYTES, smallIndex, statBaseline, unchangedByStat } from "../../src/git/stat-check.js";

/** A repository with a few files, their mtimes an hour back (no entry is racy), judged into a private index. */
async function project(): Promise<{
  top: string;
  git: PrivateGit;
  judge(): ReturnType<typeof statBaseline>;
}> {
  const top = mkdtempSync(join(tmpdir(), "gantry-statcheck-"));
  execFileSync("git", ["init", "-q", top]);
  mkdirSync(join(top, "src"));
  writeFileSync(join(top, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(top, "README.md"), "hello\n");
  writeFileSync(join(top, ".gitignore"), "build/\n");
  mkdirSync(join(top, "build"));
  const git = await createPrivateGit({ top, gitDir: join(top, ".git"), commonDir: join(top, ".git") });
  return {
    top,
    git,
    judge() {
      const past = new Date(Date.now() - 3600_000);
      for (const file of ["src/a.ts", "README.md", ".gitignore"])
        try {
          utimesSync(join(top, file), past, past);
        } catch {
          // removed by the case
        }
      const baseline = statBaseline(top, "", new Set(["build/"]));
      execFileSync("git", ["add", "-A"], { cwd: top, env: { ...process.env, ...git.env } });
      return baseline;
    },
  };
}

describe("the stat check in node", () => {
  const made: { top: string; git: PrivateGit }[] = [];
  const fresh = async () => {
    const p = await project();
    made.push(p);
    return p;
  };
  after(() => {
    for (const { top, git } of made) {
      git.dispose();
      rmSync(top, { recursive: true, force: true });
    }
  });
  const check = (p: { top: string; git: PrivateGit }, baseline: ReturnType<typeof statBaseline>) => {
    assert.ok(baseline);
    return unchangedByStat({ top: p.top, privateDir: p.git.dir, hashBytes: 20, baseline, env: {} });
  };

  it("says unchanged for the tree just judged, and what an ignored folder gains does not count", async () => {
    const p = await fresh();
    const baseline = p.judge();
    assert.equal(check(p, baseline), true);
    writeFileSync(join(p.top, "build", "out.js"), "x");
    assert.equal(check(p, baseline), true);
  });

  it("asks git for a file rewritten with the same size and its mtime set back (ctime differs)", async () => {
    const p = await fresh();
    const baseline = p.judge();
    const file = join(p.top, "src", "a.ts");
    const before = statSync(file);
    writeFileSync(file, "export const a = 2;\n");
    utimesSync(file, before.atime, before.mtime);
    assert.equal(readFileSync(file, "utf8").length, before.size);
    assert.equal(check(p, baseline), undefined);
  });

  it("asks git for a new untracked file, a removed file and a chmod", async () => {
    const p = await fresh();
    const baseline = p.judge();
    writeFileSync(join(p.top, "src", "b.ts"), "new");
    assert.equal(check(p, baseline), undefined);
    const q = await fresh();
    const qBase = q.judge();
    unlinkSync(join(q.top, "README.md"));
    assert.equal(check(q, qBase), undefined);
    const r = await fresh();
    const rBase = r.judge();
    execFileSync("chmod", ["+x", join(r.top, "README.md")]);
    assert.equal(check(r, rBase), undefined);
  });

  it("asks git for an entry not older than the index (racy) and for a folder changed after the baseline", async () => {
    const p = await fresh();
    const baseline = p.judge();
    const future = new Date(Date.now() + 3600_000);
    utimesSync(join(p.top, "README.md"), future, future);
    execFileSync("git", ["add", "-A"], { cwd: p.top, env: { ...process.env, ...p.git.env } });
    assert.equal(check(p, baseline), undefined, "racy entry");
    const q = await fresh();
    const qBase = statBaseline(q.top, "", new Set(["build/"]));
    // A file that appears between the baseline and the add is in the index, but its folder changed: git decides.
    writeFileSync(join(q.top, "src", "c.ts"), "c");
    q.judge();
    assert.equal(check(q, qBase), undefined);
    // The next baseline starts from this one: a folder that changed is read again, so a new one is walked.
    mkdirSync(join(q.top, "src", "deep"));
    const next = statBaseline(q.top, "", new Set(["build/"]), qBase);
    assert.ok(next?.walk.folders.has("src/deep/"));
    assert.equal(qBase?.walk.folders.has("src/deep/"), false);
  });

  it("leaves a large tree to git (its status costs less there)", async () => {
    const p = await fresh();
    const past = new Date(Date.now() - 3600_000);
    // Long paths fill the index past its limit with few files; one content, so git writes one object.
    const deep = join(p.top, "src", "a".repeat(200), "b".repeat(200), "c".repeat(200));
    mkdirSync(deep, { recursive: true });
    for (let i = 0; i < 110; i++) {
      const file = join(deep, `f${i}.ts`);
      writeFileSync(file, "x\n");
      utimesSync(file, past, past);
    }
    // Before the first judge the user's index stands for the private one that is not there yet.
    const userIndex = join(p.top, ".git", "index");
    assert.equal(smallIndex(p.git.dir, userIndex), true, "no index anywhere yet: not known");
    execFileSync("git", ["add", "-A"], { cwd: p.top });
    assert.ok(statSync(userIndex).size > MAX_INDEX_BYTES);
    assert.equal(smallIndex(p.git.dir), true, "no private index yet: not known");
    assert.equal(smallIndex(p.git.dir, userIndex), false, "the user's index says large");
    const baseline = p.judge();
    assert.ok(statSync(join(p.git.dir, "index")).size > MAX_INDEX_BYTES);
    assert.equal(smallIndex(p.git.dir), false);
    assert.equal(
      smallIndex(p.git.dir, join(p.top, "no-such-index")),
      false,
      "the private index decides once there",
    );
    assert.equal(check(p, baseline), undefined);
  });

  it("asks git wherever attributes could convert content: a tracked .gitattributes, or one of the private git's", async () => {
    const p = await fresh();
    writeFileSync(join(p.top, ".gitattributes"), "*.ts text eol=lf\n");
    utimesSync(
      join(p.top, ".gitattributes"),
      new Date(Date.now() - 3600_000),
      new Date(Date.now() - 3600_000),
    );
    const baseline = p.judge();
    assert.equal(check(p, baseline), undefined);
    const q = await fresh();
    const qBase = q.judge();
    assert.equal(check(q, qBase), true);
    writeFileSync(join(q.git.dir, "info", "attributes"), "* text\n");
    assert.equal(check(q, qBase), undefined);
  });
});
