import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { addOnTwoCores } from "../../src/git/add-on-two-cores.js";
import { headTreeWithoutGantry } from "../../src/git/head-without-gantry.js";
import { createPrivateGit } from "../../src/git/hermetic.js";
import { committedRepo } from "../support/git-fixtures.js";

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: "pipe", env: { ...process.env, ...env } }).trim();

/** A committed repository: 8 folders of 6 files two levels deep, files at the top, .gantry/. */
function repo(): string {
  const files: Record<string, string> = {
    ".gantry/config.json": "{}\n",
    ".gitignore": "*.log\nbuild/\n",
    "a.txt": "a\n",
    "z.txt": "z\n",
  };
  for (let f = 0; f < 8; f++) for (let k = 0; k < 6; k++) files[`d${f}/s${k % 2}/f${k}.txt`] = `${f} ${k}\n`;
  return committedRepo(files, "two-cores");
}

/** Path, mode and object of every entry, as `ls-files -s` prints them for an index file. */
const entries = (top: string, index: string) => git(top, ["ls-files", "-s"], { GIT_INDEX_FILE: index });

describe("the first judge's add on two cores", () => {
  it("leaves the entries and the tree one `add -A` leaves, whatever changed in either half", async () => {
    const top = repo();
    // Changes in both halves, at the top and in new folders: edits, removals, new and ignored files, a
    // link, an executable bit, a folder become a file.
    writeFileSync(join(top, "d0/s0/f0.txt"), "changed\n");
    rmSync(join(top, "d1/s1/f1.txt"));
    writeFileSync(join(top, "d2/new.txt"), "new\n");
    writeFileSync(join(top, "d6/s0/f2.txt"), "changed too\n");
    rmSync(join(top, "d7/s1/f3.txt"));
    chmodSync(join(top, "d5/s1/f5.txt"), 0o755);
    rmSync(join(top, "d4/s0"), { recursive: true });
    writeFileSync(join(top, "d4/s0"), "a file now\n");
    mkdirSync(join(top, "d2/fresh/deeper"), { recursive: true });
    writeFileSync(join(top, "d2/fresh/deeper/x.txt"), "x\n");
    // A first-half folder become a file, and one now ignored (its tracked files stay, a new one is not added).
    rmSync(join(top, "d3"), { recursive: true });
    writeFileSync(join(top, "d3"), "a file where a folder was\n");
    writeFileSync(join(top, ".gitignore"), "*.log\nbuild/\nd0/\n");
    writeFileSync(join(top, "d0/extra.txt"), "ignored now\n");
    writeFileSync(join(top, "d1/debug.log"), "ignored\n");
    mkdirSync(join(top, "build"));
    writeFileSync(join(top, "build/out.js"), "ignored\n");
    symlinkSync("a.txt", join(top, "d6/link"));
    writeFileSync(join(top, "b.txt"), "top\n");
    writeFileSync(join(top, ".gantry/new.json"), "{}\n");
    const head = git(top, ["rev-parse", "HEAD"]);
    const objects = join(top, ".git", "objects");
    const base = headTreeWithoutGantry(objects, head, "") as string;
    const privateGit = await createPrivateGit({
      top,
      gitDir: join(top, ".git"),
      commonDir: join(top, ".git"),
    });
    try {
      const exclusion = ":(exclude,top).gantry";
      const done = await addOnTwoCores({
        top,
        dir: privateGit.dir,
        env: privateGit.env,
        base,
        exclusion,
        minEntries: 10,
      });
      assert.equal(done, "split");
      const split = join(privateGit.dir, "index");
      const single = join(privateGit.dir, "single");
      git(top, ["read-tree", "-m", "-i", base], { ...privateGit.env, GIT_INDEX_FILE: single });
      git(top, ["add", "-A", "--", ":(top)", exclusion], { ...privateGit.env, GIT_INDEX_FILE: single });
      assert.equal(entries(top, split), entries(top, single));
      assert.match(entries(top, split), /^120000 .* 0\td6\/link$/m);
      assert.match(entries(top, split), /^100755 .* 0\td5\/s1\/f5\.txt$/m);
      assert.doesNotMatch(entries(top, split), /\.log|build\/|\.gantry|d0\/extra/);
      assert.match(entries(top, split), /^100644 .* 0\td3$/m);
      assert.match(entries(top, split), /^100644 .* 0\td0\/s1\/f1\.txt$/m);
      const tree = git(top, ["write-tree"], privateGit.env);
      assert.equal(tree, git(top, ["write-tree"], { ...privateGit.env, GIT_INDEX_FILE: single }));
      // Stat data from the adds: git's status against the merged index hashes nothing and finds it clean.
      assert.equal(git(top, ["diff-files", "--name-only"], privateGit.env), "");
      git(top, ["fsck", "--strict", "--no-progress"]);
    } finally {
      privateGit.dispose();
    }
  });

  it("keeps HEAD's cache-tree when nothing changed (the tree is HEAD's without .gantry), adds once when too small", async () => {
    const top = repo();
    const head = git(top, ["rev-parse", "HEAD"]);
    const base = headTreeWithoutGantry(join(top, ".git", "objects"), head, "") as string;
    const privateGit = await createPrivateGit({
      top,
      gitDir: join(top, ".git"),
      commonDir: join(top, ".git"),
    });
    try {
      const work = {
        top,
        dir: privateGit.dir,
        env: privateGit.env,
        base,
        exclusion: ":(exclude,top).gantry",
      };
      assert.equal(await addOnTwoCores({ ...work, minEntries: 10 }), "same");
      const index = join(privateGit.dir, "index");
      assert.match(execFileSync("grep", ["-c", "TREE", index], { encoding: "utf8" }), /^[1-9]/);
      assert.equal(git(top, ["write-tree"], privateGit.env), base);
      assert.equal(git(top, ["diff-files", "--name-only"], privateGit.env), "");
      copyFileSync(index, `${index}.kept`);
      assert.equal(await addOnTwoCores({ ...work, minEntries: 1000 }), "read");
      // Only read from the tree: no stat data yet, every entry still to be added.
      assert.equal(entries(top, index), entries(top, `${index}.kept`));
    } finally {
      privateGit.dispose();
    }
  });
});
