import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { IndexLocked } from "../../src/git/git-error.js";
import { openRepo } from "../../src/git/repo.js";
import { write } from "../support/fixture-repo.js";

/**
 * gantry's commit is the commit git would make: for each kind of repository, a story's change committed by
 * gantry (judge + commitJudged) and by `git add -A && git commit` on a copy made just before, compared. Both
 * must have the same tree, the same index flags, a clean `git status`, an index equal to HEAD and a
 * repository that passes `git fsck --strict`.
 */
const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** The user's global config for every git here, gantry's included (its settings capture reads it). */
const home = mkdtempSync(join(tmpdir(), "gantry-fidelity-home-"));
temps.push(home);
const globalConfig = join(home, "gitconfig");
writeFileSync(globalConfig, "[user]\n\tname = Fidelity\n\temail = fidelity@example.com\n");
process.env.GIT_CONFIG_GLOBAL = globalConfig;
process.env.GIT_CONFIG_NOSYSTEM = "1";

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", env: process.env }).trim();
}

interface Kind {
  /** Makes the repository (committed), in `top`; returns the project root when it is a subfolder. */
  setup(top: string): string | undefined;
  /** The agent's work, in the project root. */
  change(root: string): void;
  /** What `git add -A` is given: the project's folder. */
  scope?: string;
  /** Extra checks on gantry's repository after its commit. */
  verify?(top: string, reference: string): void;
}

/** Files every repository here holds besides its own: 0 in npm test, 30,000 in fidelity.full.test.ts. */
const FILLER = Number(process.env.GANTRY_FIDELITY_FILES ?? 0);

function repository(name: string): string {
  const top = mkdtempSync(join(tmpdir(), `gantry-fidelity-${name}-`));
  temps.push(top);
  git(top, "init", "-q", "-b", "main");
  // No auto gc detached in the background while a copy is made (many loose objects would start one).
  git(top, "config", "gc.auto", "0");
  for (let i = 0; i < FILLER; i++) {
    if (i % 100 === 0) mkdirSync(join(top, "data", `d${i / 100}`), { recursive: true });
    writeFileSync(join(top, "data", `d${Math.floor(i / 100)}`, `f${i}.txt`), `${i}\n`);
  }
  return top;
}

function commitEverything(top: string): void {
  git(top, "add", "-A");
  git(top, "commit", "-q", "-m", "base");
}

/** Runs one kind: gantry on `top`, git on a copy; compares the two. */
async function holds(name: string, kind: Kind): Promise<{ top: string; reference: string }> {
  const top = repository(name);
  const sub = kind.setup(top);
  const root = sub ? join(top, sub) : top;
  kind.change(root);
  const reference = `${top}-git`;
  temps.push(reference);
  cpSync(top, reference, { recursive: true, verbatimSymlinks: true });
  git(reference, "add", "-A", "--", kind.scope ?? ".");
  // A project in a subfolder: what git commits of that folder alone (`--only`); the rest stays as the user left it.
  git(reference, "commit", "-q", "-m", "story", ...(kind.scope ? ["--", kind.scope] : []));

  const repo = await openRepo(root);
  try {
    const judged = await repo.judge({ recheck: true });
    await repo.commitJudged(judged, "story");
  } finally {
    repo.close();
  }
  assert.equal(
    git(top, "rev-parse", "HEAD^{tree}"),
    git(reference, "rev-parse", "HEAD^{tree}"),
    `${name}: the tree`,
  );
  assert.equal(
    git(top, "ls-files", "-v"),
    git(reference, "ls-files", "-v"),
    `${name}: the index's entries and flags`,
  );
  assert.equal(
    git(top, "status", "--porcelain"),
    git(reference, "status", "--porcelain"),
    `${name}: git status`,
  );
  git(top, "diff", "--cached", "--quiet", "HEAD", "--", kind.scope ?? ".");
  git(top, "fsck", "--strict", "--no-progress");
  kind.verify?.(top, reference);
  return { top, reference };
}

const edit = (root: string) => {
  write(root, "src/a.js", "export const a = 2;\n");
  write(root, "src/new.js", "export const n = 1;\n");
};

describe("gantry's commit is the commit git would make", () => {
  it("a plain repository", async () => {
    await holds("plain", {
      setup: (top) => {
        write(top, "src/a.js", "export const a = 1;\n");
        write(top, "README.md", "x\n");
        commitEverything(top);
        return undefined;
      },
      change: (root) => {
        edit(root);
        rmSync(join(root, "README.md"));
      },
    });
  });

  it("a sparse checkout: nothing outside the cone is deleted", async () => {
    const { top } = await holds("sparse", {
      setup: (top) => {
        write(top, "src/a.js", "export const a = 1;\n");
        for (let i = 0; i < 20; i++) write(top, `other/f${i}.txt`, `${i}\n`);
        commitEverything(top);
        git(top, "sparse-checkout", "set", "src");
        return undefined;
      },
      change: edit,
    });
    assert.equal(git(top, "ls-tree", "-r", "--name-only", "HEAD", "other").split("\n").length, 20);
    assert.equal(existsSync(join(top, "other")), false, "the cone is as it was");
  });

  it("skip-worktree and assume-unchanged entries: hidden local edits stay out, the flags stay", async () => {
    await holds("flags", {
      setup: (top) => {
        write(top, "src/a.js", "export const a = 1;\n");
        write(top, "local.json", "{}\n");
        write(top, "tuned.json", "{}\n");
        commitEverything(top);
        git(top, "update-index", "--skip-worktree", "local.json");
        git(top, "update-index", "--assume-unchanged", "tuned.json");
        write(top, "local.json", '{"mine":1}\n');
        write(top, "tuned.json", '{"mine":2}\n');
        return undefined;
      },
      change: edit,
      verify: (top) => {
        assert.match(git(top, "ls-files", "-v", "local.json"), /^S /);
        assert.match(git(top, "ls-files", "-v", "tuned.json"), /^h /);
        assert.equal(git(top, "show", "HEAD:local.json"), "{}");
      },
    });
  });

  it("a project in a subfolder: the user's work elsewhere is not committed", async () => {
    await holds("monorepo", {
      setup: (top) => {
        write(top, "packages/x/src/a.js", "export const a = 1;\n");
        write(top, "packages/y/b.js", "b\n");
        commitEverything(top);
        write(top, "packages/y/b.js", "the user's own work\n");
        write(top, "packages/y/new.js", "untracked\n");
        write(top, "notes.txt", "staged elsewhere\n");
        git(top, "add", "notes.txt");
        return "packages/x";
      },
      scope: "packages/x",
      change: edit,
      verify: (top) => {
        assert.equal(git(top, "show", "HEAD:packages/y/b.js"), "b");
        assert.equal(readFileSync(join(top, "packages/y/b.js"), "utf8"), "the user's own work\n");
      },
    });
  });

  it("core.fileMode=false: modes are not taken from the disk", async () => {
    await holds("filemode", {
      setup: (top) => {
        write(top, "src/a.js", "export const a = 1;\n");
        write(top, "run.sh", "#!/bin/sh\n");
        commitEverything(top);
        git(top, "config", "core.fileMode", "false");
        chmodSync(join(top, "src/a.js"), 0o755);
        return undefined;
      },
      change: (root) => {
        edit(root);
        chmodSync(join(root, "src/new.js"), 0o755);
      },
      verify: (top) => assert.match(git(top, "ls-tree", "HEAD", "src/a.js"), /^100644 /),
    });
  });

  it("core.symlinks=false: a committed symlink stays a symlink", async () => {
    await holds("symlinks", {
      setup: (top) => {
        write(top, "src/a.js", "export const a = 1;\n");
        symlinkSync("src/a.js", join(top, "link.js"));
        commitEverything(top);
        git(top, "config", "core.symlinks", "false");
        rmSync(join(top, "link.js"));
        write(top, "link.js", "src/a.js");
        git(top, "update-index", "--refresh");
        return undefined;
      },
      change: edit,
      verify: (top) => assert.match(git(top, "ls-tree", "HEAD", "link.js"), /^120000 /),
    });
  });

  it("core.autocrlf=true and .gitattributes eol: CRLF is normalised as git normalises it", async () => {
    await holds("autocrlf", {
      setup: (top) => {
        write(top, "src/a.js", "export const a = 1;\n");
        write(top, ".gitattributes", "*.txt text eol=lf\n");
        commitEverything(top);
        git(top, "config", "core.autocrlf", "true");
        return undefined;
      },
      change: (root) => {
        write(root, "src/a.js", "export const a = 2;\r\nexport const b = 3;\r\n");
        write(root, "doc.txt", "one\r\ntwo\r\n");
      },
      verify: (top) => assert.equal(git(top, "cat-file", "-p", "HEAD:doc.txt"), "one\ntwo"),
    });
  });

  it("info/attributes and core.attributesFile hold; the story's own .gitattributes applies as git applies it", async () => {
    const attributes = join(home, "attributes");
    writeFileSync(attributes, "*.dat -text\n");
    writeFileSync(
      globalConfig,
      `${readFileSync(globalConfig, "utf8")}[core]\n\tattributesFile = ${attributes}\n`,
    );
    await holds("attributes", {
      setup: (top) => {
        write(top, "src/a.js", "export const a = 1;\n");
        commitEverything(top);
        write(top, ".git/info/attributes", "*.csv text eol=lf\n");
        return undefined;
      },
      change: (root) => {
        edit(root);
        write(root, "table.csv", "a,b\r\n");
        write(root, "blob.dat", "raw\r\n");
        write(root, ".gitattributes", "*.md text eol=lf\n");
        write(root, "notes.md", "x\r\n");
      },
    });
  });

  it("a clean filter driver the user configured runs, as git add runs it", async () => {
    writeFileSync(
      globalConfig,
      `${readFileSync(globalConfig, "utf8")}[filter "upper"]\n\tclean = tr a-z A-Z\n\tsmudge = cat\n`,
    );
    await holds("filter", {
      setup: (top) => {
        write(top, ".gitattributes", "*.up filter=upper\n");
        write(top, "src/a.js", "export const a = 1;\n");
        commitEverything(top);
        return undefined;
      },
      change: (root) => {
        edit(root);
        write(root, "shout.up", "quiet\n");
      },
      verify: (top) => assert.equal(git(top, "cat-file", "-p", "HEAD:shout.up"), "QUIET"),
    });
  });

  it("index v4, a split index and the untracked cache", async () => {
    await holds("index-formats", {
      setup: (top) => {
        for (let i = 0; i < 30; i++) write(top, `src/deep/path/f${i}.js`, `${i}\n`);
        write(top, "src/a.js", "export const a = 1;\n");
        commitEverything(top);
        git(top, "config", "core.untrackedCache", "true");
        git(top, "update-index", "--index-version", "4");
        git(top, "update-index", "--split-index");
        git(top, "status", "--porcelain");
        return undefined;
      },
      change: edit,
    });
  });

  it("a linked worktree, names with odd bytes, a registered submodule", async () => {
    const sub = repository("submodule");
    write(sub, "lib.js", "lib\n");
    commitEverything(sub);
    await holds("odd", {
      setup: (top) => {
        write(top, "src/a.js", "export const a = 1;\n");
        commitEverything(top);
        git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "vendor/lib");
        git(top, "commit", "-q", "-m", "submodule");
        git(top, "worktree", "add", "-q", "-b", "story", join(top, "wt"));
        write(top, ".git/info/exclude", "wt/\n");
        return undefined;
      },
      change: (root) => {
        edit(root);
        write(root, 'src/quote"d\tname\u00e9.js', "odd\n");
        write(root, "src/new\nline.js", "nl\n");
      },
    });
  });

  it("a story committed in a linked worktree (.git is a file there): git agrees with the commit", async () => {
    const top = repository("gitfile");
    write(top, "src/a.js", "export const a = 1;\n");
    commitEverything(top);
    const linked = `${top}-linked`;
    temps.push(linked);
    git(top, "worktree", "add", "-q", "-b", "story", linked);
    edit(linked);
    const repo = await openRepo(linked);
    try {
      await repo.commitJudged(await repo.judge({ recheck: true }), "story");
    } finally {
      repo.close();
    }
    assert.equal(git(linked, "status", "--porcelain"), "");
    git(linked, "diff", "--cached", "--quiet", "HEAD");
    assert.equal(git(top, "rev-parse", "main"), git(linked, "rev-parse", "HEAD~1"), "main is where it was");
    assert.equal(git(linked, "show", "HEAD:src/new.js"), "export const n = 1;");
  });

  it("a racy rewrite (same size, same second, right after a judge) is seen", async () => {
    const top = repository("racy");
    write(top, "src/a.js", "export const a = 1;\n");
    commitEverything(top);
    const repo = await openRepo(top);
    try {
      write(top, "src/a.js", "export const a = 2;\n");
      const first = await repo.judge({ recheck: true });
      write(top, "src/a.js", "export const a = 3;\n");
      const second = await repo.judge({ recheck: true });
      assert.equal(git(top, "cat-file", "-p", `${second.tree}:src/a.js`), "export const a = 3;");
      assert.notEqual(second.tree, first.tree);
    } finally {
      repo.close();
    }
  });

  it("an index.lock held past the wait: nothing moves, and the next commit lands once it is released", async () => {
    const top = repository("locked");
    write(top, "src/a.js", "export const a = 1;\n");
    commitEverything(top);
    const base = git(top, "rev-parse", "HEAD");
    edit(top);
    process.env.GANTRY_INDEX_LOCK_WAIT_MS = "300";
    const repo = await openRepo(top);
    try {
      const judged = await repo.judge({ recheck: true });
      writeFileSync(join(top, ".git", "index.lock"), "");
      await assert.rejects(repo.commitJudged(judged, "story"), IndexLocked);
      assert.equal(git(top, "rev-parse", "HEAD"), base, "HEAD did not move");
      rmSync(join(top, ".git", "index.lock"));
      assert.equal(git(top, "diff", "--cached", "--name-only"), "", "the index is HEAD's");
      await repo.commitJudged(await repo.judge({ recheck: true }), "story");
      assert.equal(git(top, "status", "--porcelain"), "");
      git(top, "diff", "--cached", "--quiet", "HEAD");
    } finally {
      delete process.env.GANTRY_INDEX_LOCK_WAIT_MS;
      repo.close();
    }
  });

  it("a filter driver or attributes file planted outside the tree during a session: not used, and reported", async () => {
    const top = repository("planted");
    write(top, "src/a.js", "export const a = 1;\n");
    write(top, ".gitattributes", "*.js filter=evil\n");
    commitEverything(top);
    const repo = await openRepo(top);
    try {
      const before = await repo.snapshot();
      await repo.judge();
      const planted = readFileSync(globalConfig, "utf8");
      writeFileSync(globalConfig, `${planted}[filter "evil"]\n\tclean = echo hidden\n`);
      try {
        edit(top);
        const changes = await repo.restoreSince(before);
        assert.deepEqual(
          changes.map((c) => [c.kind, c.what]),
          [["settings", "git's global or system config changed (filter.evil.clean)"]],
        );
        const judged = await repo.judge({ recheck: true });
        assert.equal(
          git(top, "cat-file", "-p", `${judged.tree}:src/a.js`),
          "export const a = 2;",
          "the planted filter never ran",
        );
      } finally {
        writeFileSync(globalConfig, planted);
      }
    } finally {
      repo.close();
    }
  });

  it("set aside: the work is a stash entry git can apply, and the files are HEAD's", async () => {
    const top = repository("set-aside");
    write(top, "src/a.js", "export const a = 1;\n");
    commitEverything(top);
    edit(top);
    const repo = await openRepo(top);
    try {
      const stash = await repo.setAside("gantry(US-1) failed work");
      assert.ok(stash);
      assert.equal(git(top, "status", "--porcelain"), "");
      assert.match(git(top, "stash", "list"), /gantry\(US-1\) failed work/);
      git(top, "stash", "apply", "-q");
      assert.equal(readFileSync(join(top, "src/new.js"), "utf8"), "export const n = 1;\n");
      assert.equal(readFileSync(join(top, "src/a.js"), "utf8"), "export const a = 2;\n");
    } finally {
      repo.close();
    }
  });
});
