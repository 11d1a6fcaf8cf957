import { isAbsolute, join } from "node:path";
import { InputError } from "../config/input-error.js";
import { activity, realTree } from "../process/activity.js";
import { commitJudged } from "./commit.js";
import { CommitAhead } from "./commit-ahead.js";
import { rememberTreeOfCommit, treeOfCommit } from "./commit-trees.js";
import { committerIdentity } from "./committer.js";
import { runGit } from "./exec.js";
import { gitReason } from "./git-error.js";
import { GitObjects } from "./git-objects.js";
import type { GitRepo, RepoLocations } from "./git-repo.js";
import { branchFromHeadFile, headFromFiles } from "./head-file.js";
import { createPrivateGit, type PrivateGit } from "./hermetic.js";
import { ignoredBook } from "./ignored-book.js";
import { newIgnoredSources } from "./ignored-files.js";
import { type IndexedPaths, indexedIn } from "./ignored-from-index.js";
import { EMPTY_TREE, GANTRY_DIR, type TreeScope, UNBORN } from "./judge.js";
import { type JudgedChange, parseJudgedDiff } from "./judged-changes.js";
import { JudgedTreeCache } from "./judged-tree-cache.js";
import { dirtyFiles, uncommittedAtStart } from "./start-check.js";
import { loadStatCache, saveStatCache } from "./stat-cache.js";
import { compareAndRestore, type GitSnapshot, snapshotGit } from "./tamper-snapshot.js";
import { headAndTree, trackedFiles } from "./tracked-files.js";
import { checkedFolders } from "./untracked-cache.js";
import { UserIndexBook } from "./user-index-book.js";

export type { RepoLocations };
export { UNBORN };

/** Where the repository at projectRoot is, asked of git; a setup git cannot work in is an InputError. */
async function locateRepo(projectRoot: string): Promise<RepoLocations> {
  let located: string;
  try {
    located = await runGit(projectRoot, [
      "rev-parse",
      "--show-prefix",
      "--git-dir",
      "--git-common-dir",
      "--show-toplevel",
      "--show-object-format",
    ]);
  } catch (error) {
    // Not a repository, git missing, an unsafe owner: the user's setup, said in one line, exit 2.
    throw new InputError(projectRoot, "", `git cannot work here: ${gitReason(error)}`);
  }
  const [prefix = "", gitDirRaw = ".git", commonRaw = gitDirRaw, top = projectRoot, objectFormat = "sha1"] =
    located.replace(/\n$/, "").split("\n");
  const gitDir = isAbsolute(gitDirRaw) ? gitDirRaw : join(projectRoot, gitDirRaw);
  const commonDir = isAbsolute(commonRaw) ? commonRaw : join(projectRoot, commonRaw);
  return { prefix, gitDir, commonDir, top, objectFormat };
}

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

  const head = async () => {
    const fromFiles = headFromFiles(gitDir);
    if (fromFiles !== undefined) return fromFiles;
    try {
      return (await raw(["rev-parse", "--verify", "-q", "HEAD"])).trim() || UNBORN;
    } catch {
      return UNBORN;
    }
  };

  const dirs = { top, gitDir, commonDir };
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
      userIndex: join(gitDir, "index"),
    };
    return treeScope;
  };

  const cache = new JudgedTreeCache({
    top,
    prefix,
    userIndex: join(gitDir, "index"),
    hashBytes,
    head,
    scope,
    ranHere,
    ignoredPaths: () => ignored?.paths,
  });
  const { sameContents } = cache;

  // Untracked ignored paths as last listed, and what had run by then: a story's start reuses the list
  // the story before it ended with when nothing ran in between.
  let ignored: { paths: Set<string>; started: number; sha: string } | undefined;
  /** The tree the last judge gave: the private index's paths, as long as cache.judgedIn holds. */
  let lastJudgedTree: string | undefined;
  // The private index's paths in some folders once this run's judge wrote it, from the tree it wrote:
  // they answer for a changed folder with nothing new outside them, no git (ignored-from-index.ts).
  const indexedNow = (folders: readonly string[]): IndexedPaths | undefined => {
    const { judgedIn } = cache;
    const objects =
      judgedIn !== undefined && judgedIn === treeScope ? judgedIn.git.env.GIT_OBJECT_DIRECTORY : undefined;
    if (!objects || lastJudgedTree?.length !== 40) return undefined;
    return indexedIn(new GitObjects(objects), lastJudgedTree, folders);
  };
  // The folders the last judge's status checked (untracked-cache.ts), once the judge queued before finished
  // (completion's: the listing runs beside it).
  const checked = () => serial(async () => checkedFolders(treeScope, hashBytes));
  const listings = ignoredBook(projectRoot, prefix, dirs, indexedNow, checked);
  const listIgnored = async (before?: Set<string>): Promise<Set<string>> => {
    const now = ranHere();
    const sha = await head();
    const paths = await (before ? listings.since(before) : listings.list());
    ignored = now.running === 0 ? { paths, started: now.started, sha } : undefined;
    return paths;
  };
  const treeLists = new Map<string, Promise<string[]>>();
  // The user's index flags as last read, by index file version: a snapshot reads them only for a new one.
  let knownFlags: Pick<GitSnapshot, "indexKey" | "indexFlags"> | undefined;
  const userIndexBook = new UserIndexBook(join(gitDir, "index"), hashBytes);
  // The commit made ahead while completion's status runs; the next commit takes it.
  const ahead = new CommitAhead({
    projectRoot,
    dirs,
    userIndex: join(gitDir, "index"),
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

  const judge: GitRepo["judge"] = (options) =>
    serial(async () => {
      const judged = await cache.judge(options);
      lastJudgedTree = judged.tree;
      return judged;
    });
  const ignoredPaths = async () => {
    const now = ranHere();
    if (ignored && ignored.started === now.started && now.running === 0 && ignored.sha === (await head()))
      return ignored.paths;
    return listIgnored();
  };

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
        const last = cache.last;
        const wasLast = last?.tree === judged.tree && last.sha === judged.sha ? last : undefined;
        cache.last = undefined;
        knownFlags = undefined;
        const indexHoldsTree = wasLast !== undefined && s.index.head === judged.sha;
        const identity = await committerIdentity(projectRoot, dirs);
        const userIndex = join(gitDir, "index");
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
        if (wasLast && indexHoldsTree) cache.last = { ...wasLast, sha: commit };
        if (ignored && ignored.sha === judged.sha) ignored.sha = commit;
        return commit;
      }),
    async changedFiles(base, tree) {
      const known = judgedChanges(base, tree);
      if (known) return [...new Set(known.map((change) => change.path))].sort();
      const out = await runGit(projectRoot, [
        "diff-tree",
        "-r",
        "-z",
        "--name-only",
        "--no-renames",
        "--relative",
        base === UNBORN ? EMPTY_TREE : base,
        tree,
        "--",
        ".",
        ...outside,
      ]);
      return [...new Set(out.split("\0").filter(Boolean))].sort();
    },
    treeFiles(tree) {
      let files = treeLists.get(tree);
      if (!files) {
        if (treeLists.size >= 8) treeLists.clear();
        files = runGit(projectRoot, ["ls-tree", "-r", "-z", "--name-only", tree]).then((out) =>
          out.split("\0").filter(Boolean),
        );
        treeLists.set(tree, files);
        files.catch(() => treeLists.delete(tree));
      }
      return files;
    },
    async sameContent(commit, tree) {
      // Both are object ids (a name like HEAD is asked each time): the answer never changes.
      const key = /^[0-9a-f]{40,64}$/.test(commit) ? `${commit} ${tree}` : undefined;
      const known = key ? sameContents.get(key) : undefined;
      if (known !== undefined) return known;
      let same: boolean;
      try {
        await runGit(projectRoot, ["diff-tree", "-r", "--quiet", commit, tree, "--", ":(top)", ...outside]);
        same = true;
      } catch {
        same = false;
      }
      if (key) {
        if (sameContents.size >= 64) sameContents.clear();
        sameContents.set(key, same);
      }
      return same;
    },
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
    newIgnoredSources: async (before) => {
      const found = newIgnoredSources(top, before, await listIgnored(before));
      // Files about to be moved away: the next story's start lists them again.
      if (found.length > 0) ignored = undefined;
      return found;
    },
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
        userIndex: join(gitDir, "index"),
        outside,
        scope,
        judge: () => judge(),
        meanwhile: () => {
          void ignoredPaths().catch(() => undefined);
          userIndexBook.tracked(prefix);
        },
      }),
    async setAside(message) {
      const dirty = await dirtyFiles(projectRoot, outside);
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
      return (await raw(["rev-parse", "stash@{0}"])).trim();
    },
    async commitIdentityProblem() {
      try {
        await committerIdentity(projectRoot, dirs);
        return undefined;
      } catch (error) {
        return `git has no identity to commit with (${gitReason(error)}); set user.name and user.email with git config`;
      }
    },
    async branch() {
      // The HEAD file names it when it can (one git program fewer a merge); git otherwise.
      const fromFile = branchFromHeadFile(gitDir);
      if (fromFile !== undefined) return fromFile ?? undefined;
      try {
        return (await raw(["symbolic-ref", "--quiet", "--short", "HEAD"])).trim() || undefined;
      } catch {
        return undefined;
      }
    },
  };
}
