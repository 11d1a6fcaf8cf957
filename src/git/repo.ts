import { join } from "node:path";
import { activity, realTree } from "../process/activity.js";
import { changedBetween } from "./changed-files.js";
import { commitJudged } from "./commit.js";
import { rememberTreeOfCommit, treeOfCommit } from "./commit-trees.js";
import { identityProblem } from "./committer.js";
import { runGit } from "./exec.js";
import type { GitRepo, RepoLocations } from "./git-repo.js";
import { ignoredPaths, newIgnoredSources } from "./ignored.js";
import { GANTRY_DIR, type JudgeScope, judgeTree, UNBORN } from "./judge.js";
import { JudgedTrees } from "./judged-trees.js";
import { locateRepo } from "./locate-repo.js";
import { setAside } from "./set-aside.js";
import { captureSettings, type GitSettings } from "./settings.js";
import { dirtyFiles } from "./start-check.js";
import { compareAndRestore, type GitSnapshot, snapshotGit } from "./tamper-snapshot.js";
import { headAndTree, trackedFiles } from "./tracked-files.js";

export type { RepoLocations };
export { UNBORN };

/**
 * The repository at projectRoot as gantry asks of it, every answer git's own: the judge and the commit
 * through git's plumbing with the user's settings as they were when the run began (settings.ts).
 * `known`: where the repository is, when the caller knows it for certain (a worktree gantry just made).
 */
export async function openRepo(projectRoot: string, known?: RepoLocations): Promise<GitRepo> {
  const locations = known ?? (await locateRepo(projectRoot));
  const { prefix, gitDir, commonDir, top } = locations;
  const outside = [`:(exclude,top)${prefix}${GANTRY_DIR}`];
  let settings: Promise<GitSettings> | undefined;
  const captured = () => {
    settings ??= captureSettings(top, commonDir);
    return settings;
  };
  const env = async () => (await captured()).env;
  const git = async (args: string[]) => runGit(projectRoot, args, { ...(await env()) });
  const scope = async (): Promise<JudgeScope> => {
    const s = await captured();
    return {
      cwd: projectRoot,
      prefix,
      userIndex: join(gitDir, "index"),
      privateIndex: join(s.dir, "index"),
      env: s.env,
    };
  };
  const head = async () =>
    (await git(["rev-parse", "-q", "--verify", "HEAD"]).catch(() => "")).trim() || UNBORN;

  // One judge, commit or set-aside at a time: they share the private index.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const reach = realTree(top);
  const judged = new JudgedTrees(() => activity(reach));
  // The tree the judge's own index holds now (its last build), for the commit to start from.
  let privateHolds: string | undefined;
  const judgeOn = async (sha: string) => {
    privateHolds = undefined;
    const made = await judgeTree(await scope(), sha);
    privateHolds = made.tree;
    return made;
  };
  let knownFlags: Pick<GitSnapshot, "indexKey" | "indexFlags"> | undefined;

  return {
    root: projectRoot,
    locations,
    top,
    head,
    judge: (options) => serial(async () => judged.judge(await head(), judgeOn, options)),
    commitJudged: (tree, subject, options) =>
      serial(async () => {
        judged.forget();
        const s = await scope();
        const made = await commitJudged(s, {
          judged: tree,
          subject,
          top,
          commitIndex: join((await captured()).dir, "commit-index"),
          ...(privateHolds === tree.tree ? { judgedIndex: s.privateIndex } : {}),
          ...(options?.ready ? { ready: options.ready } : {}),
          ...(options?.moveBranch ? { moveBranch: options.moveBranch } : {}),
        });
        rememberTreeOfCommit(made.commit, made.tree);
        judged.carry({ sha: made.commit, tree: tree.tree });
        return made.commit;
      }),
    changedFiles: (base, tree) => changedBetween(projectRoot, base, tree, outside),
    async treeFiles(tree) {
      const out = await git(["ls-tree", "-r", "-z", "--name-only", tree, "--", "."]);
      return out.split("\0").filter(Boolean);
    },
    async sameContent(commit, tree) {
      try {
        await git(["diff-tree", "--quiet", "-r", commit, tree, "--", ".", ...outside]);
        return true;
      } catch {
        return false;
      }
    },
    async snapshot() {
      const taken = await snapshotGit(projectRoot, gitDir, commonDir, knownFlags, prefix);
      knownFlags = taken;
      return taken;
    },
    async restoreSince(before) {
      const after = await snapshotGit(projectRoot, gitDir, commonDir, before, prefix);
      const changes = await compareAndRestore(projectRoot, { gitDir, commonDir }, before, after);
      const drift = await (await captured()).drift();
      return [...changes, ...drift.map((what) => ({ kind: "settings" as const, what, restored: false }))];
    },
    ignoredPaths: async () => ignoredPaths(projectRoot, prefix, await env()),
    newIgnoredSources: async (before) =>
      newIgnoredSources(top, before, await ignoredPaths(projectRoot, prefix, await env())),
    close() {
      void settings?.then((s) => s.dispose()).catch(() => undefined);
      settings = undefined;
    },
    trackedFiles: () => trackedFiles(projectRoot),
    async headAndTree() {
      const sha = await head();
      const known = treeOfCommit(sha);
      if (known !== undefined) return { sha, tree: known };
      const answer = await headAndTree(projectRoot);
      rememberTreeOfCommit(answer.sha, answer.tree);
      return answer;
    },
    async headSubject() {
      return (await git(["log", "-1", "--format=%s"]).catch(() => "")).trim();
    },
    async commitFiles(sha) {
      const out = await git(["diff-tree", "--no-commit-id", "--name-only", "-r", "-z", "--relative", sha]);
      return out.split("\0").filter(Boolean);
    },
    dirtyFiles: async () => dirtyFiles(projectRoot, outside, await env()),
    uncommittedAtStart: async () => dirtyFiles(projectRoot, outside, await env()),
    setAside: (message) =>
      serial(async () => {
        judged.forget();
        const s = await scope();
        const sha = await head();
        if (sha === UNBORN) return undefined;
        privateHolds = undefined;
        const rejudge = () => judgeTree(s, sha, true);
        const tree = (await git(["rev-parse", `${sha}^{tree}`])).trim();
        return setAside({ top, env: s.env, judged: await rejudge(), headTree: tree, message, rejudge });
      }),
    commitIdentityProblem: async () => identityProblem(projectRoot, await env()),
    async branch() {
      return (await git(["symbolic-ref", "-q", "--short", "HEAD"]).catch(() => "")).trim() || undefined;
    },
  };
}
