import { join } from "node:path";
import { activity, realTree } from "../process/activity.js";
import { changedBetween } from "./changed-files.js";
import { commitJudged } from "./commit.js";
import { CommitAhead } from "./commit-ahead.js";
import { rememberTreeOfCommit, treeOfCommit } from "./commit-trees.js";
import { committerIdentity, identityProblem } from "./committer.js";
import { runGit } from "./exec.js";
import type { GitRepo, RepoLocations } from "./git-repo.js";
import { readBranch, readHead } from "./head-file.js";
import { createPrivateGit, type PrivateGit } from "./hermetic.js";
import { ignoredBook } from "./ignored-book.js";
import { GANTRY_DIR, type TreeScope, UNBORN } from "./judge.js";
import { type JudgedChange, parseJudgedDiff } from "./judged-changes.js";
import { JudgedTreeCache } from "./judged-tree-cache.js";
import { LastIgnored } from "./last-ignored.js";
import { locateRepo } from "./locate-repo.js";
import { SameContents } from "./same-contents.js";
import { setAside } from "./set-aside.js";
import { dirtyFiles, uncommittedAtStart } from "./start-check.js";
import { loadStatCache, saveStatCache } from "./stat-cache.js";
import { compareAndRestore, type GitSnapshot, snapshotGit } from "./tamper-snapshot.js";
import { headAndTree, trackedFiles } from "./tracked-files.js";
import { TreeFileLists } from "./tree-file-lists.js";
import { checkedFolders } from "./untracked-cache.js";
import { UserIndexBook } from "./user-index-book.js";

export type { RepoLocations };
export { UNBORN };

/**
 * A small wrapper over git for the few questions gantry asks, each answered with as few git calls as it can.
 * `known`: where the repository is, when the caller knows it for certain (a worktree gantry just made or
 * found): no `rev-parse` then.
 */
export async function openRepo(projectRoot: string, known?: RepoLocations): Promise<GitRepo> {
  const raw = (args: string[]) => runGit(projectRoot, args);
  const locations = known ?? (await locateRepo(projectRoot));
  const { prefix, gitDir, commonDir, top, objectFormat: format } = locations;
  const outside = [`:(exclude,top)${prefix}${GANTRY_DIR}`];
  const hashBytes = format === "sha256" ? 32 : 20;
  /** gantry's last commit and its tree (.gantry/ included). */
  let committed: { commit: string; tree: string } | undefined;

  const head = () => readHead(projectRoot, gitDir);
  const dirs = { top, gitDir, commonDir };
  const userIndex = join(gitDir, "index");
  // What ran that could reach this tree (activity.ts): another worktree's sandboxed session does not.
  const reach = realTree(top);
  const ranHere = () => activity(reach);
  let privateGit: PrivateGit | undefined;

  // One judge or commit at a time: they share the private index.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  let treeScope: TreeScope | undefined;
  const scope = async (): Promise<TreeScope> => {
    if (!privateGit) {
      privateGit = await createPrivateGit(dirs);
      // The last run's stat data (stat-cache.ts): the first judge rebuilds the index from HEAD around it.
      loadStatCache(top, privateGit.dir);
    }
    treeScope ??= {
      cwd: projectRoot,
      top,
      prefix,
      git: privateGit,
      index: {},
      checked: new Map(),
      userIndex,
    };
    return treeScope;
  };

  const sameContents = new SameContents(projectRoot, outside);
  const cache = new JudgedTreeCache({
    top,
    prefix,
    userIndex,
    hashBytes,
    head,
    scope,
    ranHere,
    ignoredPaths: () => ignored.paths,
    sameContents,
  });
  // The folders the last judge's status checked (untracked-cache.ts), once the judge queued before finished
  // (completion's: the listing runs beside it).
  const checked = () => serial(async () => checkedFolders(treeScope, hashBytes));
  const listings = ignoredBook(
    projectRoot,
    prefix,
    dirs,
    (folders) => cache.indexedPaths(folders, treeScope),
    checked,
  );
  const ignored = new LastIgnored({ top, head, ranHere, listings });
  const treeLists = new TreeFileLists(projectRoot);
  // The user's index flags as last read, by index file version: a snapshot reads them only for a new one.
  let knownFlags: Pick<GitSnapshot, "indexKey" | "indexFlags"> | undefined;
  const userIndexBook = new UserIndexBook(userIndex, hashBytes);
  // The commit made ahead while completion's status runs; the next commit takes it.
  const ahead = new CommitAhead({
    projectRoot,
    dirs,
    userIndex,
    cache,
    scope: () => treeScope,
    userIndexBook,
  });

  /** What the last judge's own diff-tree says a story changed, when it compared `base` with `tree`. */
  const judgedChanges = (base: string, tree: string): JudgedChange[] | undefined => {
    const diff = treeScope?.lastDiff;
    if (!diff || base === UNBORN || diff.head !== base || diff.tree !== tree) return undefined;
    return parseJudgedDiff(diff.raw, prefix);
  };

  const judge: GitRepo["judge"] = (options) => serial(() => cache.judge(options));
  const ignoredPaths = () => ignored.now();

  return {
    root: projectRoot,
    locations,
    commitAheadPays: () => ahead.pays(),
    prepareCommit: (subject, contents) => ahead.prepare(subject, contents),
    top,
    head,
    judgedChanges,
    judge,
    commitJudged: (judged, subject, options) =>
      serial(async () => {
        const s = await scope();
        const wasLast = cache.takeLast(judged);
        knownFlags = undefined;
        const indexHoldsTree = wasLast !== undefined && s.index.head === judged.sha;
        const identity = await committerIdentity(projectRoot, dirs);
        const userIndexWritten = userIndexBook.takeWritten();
        const prepared = await ahead.take();
        const made = await commitJudged(s, {
          judged,
          subject,
          indexHoldsTree,
          head,
          identity,
          userIndex,
          userIndexWritten,
          userIndexBuffer: (size) => userIndexBook.buffer(size),
          ...(options?.ready ? { ready: options.ready } : {}),
          ...(prepared ? { prepared } : {}),
        });
        const { commit } = made;
        committed = { commit, tree: made.tree };
        rememberTreeOfCommit(made.commit, made.tree);
        // The user's index just reset to the commit: the next session's tamper snapshot starts from its flags.
        knownFlags = userIndexBook.committed(made.userIndex);
        // The working tree is what was judged, now on top of the new commit: no need to judge it again.
        if (wasLast && indexHoldsTree) cache.carried(wasLast, commit);
        ignored.committed(judged.sha, commit);
        return commit;
      }),
    async changedFiles(base, tree) {
      const known = judgedChanges(base, tree);
      if (known) return [...new Set(known.map((change) => change.path))].sort();
      return changedBetween(projectRoot, base, tree, outside);
    },
    treeFiles: (tree) => treeLists.files(tree),
    sameContent: (commit, tree) => sameContents.same(commit, tree),
    async snapshot() {
      // The first snapshot of this tree (a story's new worktree) too: snapshotGit reads a new index file's
      // flags in node where it can (index-flags.ts), from readiness's read of that version when there was one.
      knownFlags ??= userIndexBook.flagsFromLastRead();
      const taken = await snapshotGit(top, gitDir, commonDir, knownFlags, hashBytes);
      knownFlags = taken;
      return taken;
    },
    async restoreSince(before) {
      const after = await snapshotGit(top, gitDir, commonDir, before, hashBytes);
      return compareAndRestore(top, { gitDir, commonDir }, before, after);
    },
    ignoredPaths,
    newIgnoredSources: (before) => ignored.newSources(before),
    close() {
      // Kept only when the private index is whole: HEAD's entries plus a finished judge or commit.
      if (privateGit && treeScope?.index.head !== undefined) saveStatCache(top, privateGit.dir);
      privateGit?.dispose();
      privateGit = undefined;
      treeScope = undefined;
    },
    async trackedFiles() {
      // From the user's index in node, decoding only the names changed since the last read; else git.
      return userIndexBook.tracked(prefix) ?? trackedFiles(projectRoot);
    },
    async headAndTree() {
      const sha = await head();
      // gantry's own last commit names its tree, as does any commit whose tree this process knows (the tip
      // a story's worktree starts from); any other HEAD is asked of git.
      if (committed?.commit === sha) return { sha, tree: committed.tree };
      const known = treeOfCommit(sha);
      if (known !== undefined) return { sha, tree: known };
      const answer = await headAndTree(projectRoot);
      rememberTreeOfCommit(answer.sha, answer.tree);
      return answer;
    },
    async headSubject() {
      try {
        return (await raw(["log", "-1", "--format=%s"])).trim();
      } catch {
        return "";
      }
    },
    async commitFiles(sha) {
      const out = await raw(["diff-tree", "--no-commit-id", "--name-only", "-r", "--relative", sha]);
      return out.split("\n").filter(Boolean);
    },
    dirtyFiles: () => dirtyFiles(projectRoot, outside),
    uncommittedAtStart: () =>
      uncommittedAtStart({
        projectRoot,
        prefix,
        userIndex,
        outside,
        scope,
        judge: () => judge(),
        meanwhile: () => {
          void ignoredPaths().catch(() => undefined);
          userIndexBook.tracked(prefix);
        },
      }),
    setAside: (message) => setAside(projectRoot, outside, message),
    commitIdentityProblem: () => identityProblem(projectRoot, dirs),
    branch: () => readBranch(projectRoot, gitDir),
  };
}
