import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { simpleGit } from "simple-git";
import { InputError } from "../config/input-error.js";
import type { Judged } from "../model/ledger.js";
import { type GitStep, runGit, runGitSteps } from "./exec.js";
import { headFromFiles } from "./head-file.js";

/** gantry's own files never count as the content being judged or the work being committed. */
const GANTRY_DIR = ".gantry";

export interface GitRepo {
  readonly root: string;
  head(): Promise<string>;
  /** HEAD and the tree hash of the working tree (tracked + untracked, not ignored, without .gantry/). */
  judge(): Promise<Judged>;
  /** Stages everything but .gantry/runs, plus the given extra paths, and commits. Returns the new sha. */
  commitAll(message: string): Promise<string>;
  headSubject(): Promise<string>;
  /** Files a commit changed, relative to the project root. */
  commitFiles(sha: string): Promise<string[]>;
  /** Files changed in the working tree (relative to the project root), .gantry/ excluded. */
  dirtyFiles(): Promise<string[]>;
  /** Saves uncommitted work (tracked and untracked, .gantry/ excluded) to the stash; returns its ref or undefined. */
  setAside(message: string): Promise<string | undefined>;
  /** Why `git commit` would refuse here (no user.name / user.email), in one line; undefined when it can commit. */
  commitIdentityProblem(): Promise<string | undefined>;
  /** The checked-out branch; undefined on a detached HEAD. */
  branch(): Promise<string | undefined>;
}

export const UNBORN = "0000000000000000000000000000000000000000";

/** A small wrapper over simple-git for the few questions gantry asks, each answered with as few git calls as it can. */
export async function openRepo(projectRoot: string): Promise<GitRepo> {
  const git = simpleGit({ baseDir: projectRoot, maxConcurrentProcesses: 4 });
  let prefix: string;
  try {
    prefix = (await git.revparse(["--show-prefix"])).trim();
  } catch (error) {
    // Not a repository, git missing, an unsafe owner: the user's setup, said in one line, exit 2.
    throw new InputError(projectRoot, "", `git cannot work here: ${gitReason(error)}`);
  }
  const gitDirRaw = (await git.revparse(["--git-dir"])).trim();
  const gitDir = isAbsolute(gitDirRaw) ? gitDirRaw : join(projectRoot, gitDirRaw);
  const outside = [`:(exclude,top)${prefix}${GANTRY_DIR}`];

  const head = async () => {
    const fromFiles = headFromFiles(gitDir);
    if (fromFiles !== undefined) return fromFiles;
    try {
      return (await git.revparse(["HEAD"])).trim();
    } catch {
      return UNBORN;
    }
  };

  const dirtyFiles = async () => {
    // runGit: on a clean tree status prints nothing, after which simple-git would wait 50 ms.
    // GIT_OPTIONAL_LOCKS=0: status does not write its refreshed stat data back into the user's index, which
    // would take the index lock and make judge() copy and strip the index again.
    const out = await runGit(
      projectRoot,
      ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".", ...outside],
      { GIT_OPTIONAL_LOCKS: "0" },
    );
    return out
      .split("\0")
      .filter((entry) => entry.length > 3)
      .map((entry) => entry.slice(3));
  };

  // The user's index without .gantry/, kept while the user's index file is the same one (git replaces the
  // file on every write): the judges between two commits start from it and need no `git rm` of their own.
  let stripped: { key: string; bytes: Buffer } | undefined;

  return {
    root: projectRoot,
    head,
    async judge() {
      // A private index: the user's index is copied (so unchanged files are not rehashed) and never touched.
      const dir = mkdtempSync(join(tmpdir(), "gantry-index-"));
      const index = join(dir, "index");
      try {
        const env = { GIT_INDEX_FILE: index };
        const userIndex = join(gitDir, "index");
        const key = fileKey(userIndex);
        if (key !== undefined && stripped?.key === key) {
          writeFileSync(index, stripped.bytes);
        } else {
          if (key !== undefined) copyFileSync(userIndex, index);
          // Before `add`, which leaves .gantry/ alone (excluded), so the order does not change the tree.
          // -f: the copied index may hold a .gantry/ file staged by a commit a crash interrupted, which
          // differs from both HEAD and the file once resume rewrote prd.json; without it git rm refuses.
          await runGit(
            projectRoot,
            ["rm", "-r", "-q", "-f", "--cached", "--ignore-unmatch", "--", `:(top)${prefix}${GANTRY_DIR}`],
            env,
          );
          // Kept only if the user's index did not change while it was copied.
          stripped =
            key !== undefined && fileKey(userIndex) === key && existsSync(index)
              ? { key, bytes: readFileSync(index) }
              : undefined;
        }
        // One shell for both: a git process spawned from node costs more than one spawned from /bin/sh.
        const tree = (
          await runGitSteps(projectRoot, [addAllBut(outside), { args: ["write-tree"] }], env)
        ).trim();
        return { sha: await head(), tree };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    async commitAll(message) {
      // Not simple-git, which waits 50 ms more after a command that prints nothing; the three from one shell.
      await runGitSteps(projectRoot, [
        // An exclude pathspec naming an ignored path makes `git add` exit 1, so stage all, then unstage ours.
        { args: ["add", "-A", "--", ":(top)"] },
        // -f (index only, --cached never touches the files): see judge() for the staged state that needs it.
        {
          args: [
            "rm",
            "-r",
            "-q",
            "-f",
            "--cached",
            "--ignore-unmatch",
            "--",
            `:(top)${prefix}${GANTRY_DIR}/runs`,
            `:(top)${prefix}${GANTRY_DIR}/lock`,
          ],
        },
        { args: ["commit", "-q", "--no-verify", "--allow-empty", "-m", message] },
      ]);
      return head();
    },
    async headSubject() {
      try {
        return (await git.raw(["log", "-1", "--format=%s"])).trim();
      } catch {
        return "";
      }
    },
    async commitFiles(sha) {
      const out = await git.raw(["diff-tree", "--no-commit-id", "--name-only", "-r", "--relative", sha]);
      return out.split("\n").filter(Boolean);
    },
    dirtyFiles,
    async setAside(message) {
      const dirty = await dirtyFiles();
      if (dirty.length === 0) return undefined;
      await runGit(projectRoot, [
        "stash",
        "push",
        "--include-untracked",
        "-q",
        "-m",
        message,
        "--",
        ":(top)",
        ...outside,
      ]);
      return (await git.raw(["rev-parse", "stash@{0}"])).trim();
    },
    async commitIdentityProblem() {
      try {
        await git.raw(["var", "GIT_AUTHOR_IDENT"]);
        await git.raw(["var", "GIT_COMMITTER_IDENT"]);
        return undefined;
      } catch (error) {
        return `git has no identity to commit with (${gitReason(error)}); set user.name and user.email with git config`;
      }
    },
    async branch() {
      try {
        return (await git.raw(["symbolic-ref", "--quiet", "--short", "HEAD"])).trim() || undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** Identifies one version of a file: git writes its index to a new file and renames it over the old. */
function fileKey(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return undefined;
  }
}

/** The line of a git failure that says what is wrong, without "fatal: " and the advice around it. */
function gitReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if ((error as NodeJS.ErrnoException)?.code === "ENOENT" || /spawn git ENOENT/.test(message))
    return "git is not installed or not on PATH";
  const lines = message.split("\n").map((l) => l.trim());
  const fatal = lines.find((l) => /^(fatal|error):/.test(l)) ?? lines.find((l) => l !== "") ?? message;
  return fatal.replace(/^(fatal|error):\s*/, "");
}

/**
 * `git add -A` of everything except the excluded paths, so gantry's run files are never hashed. When an
 * excluded path is itself ignored, git stages the rest and still exits 1 ("paths are ignored"): that is fine.
 */
function addAllBut(excludes: string[]): GitStep {
  return {
    args: ["add", "-A", "--", ":(top)", ...excludes],
    tolerate: "are ignored by one of your .gitignore files",
  };
}
