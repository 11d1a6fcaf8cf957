import type { Judged } from "../model/ledger.js";
import { runGit, runGitSteps } from "./exec.js";
import { GANTRY_DIR, type TreeScope, UNBORN } from "./judge.js";

/** The commit gantry made is not what HEAD holds afterwards: a hook or another process moved it. */
export class CommitMismatch extends Error {
  override name = "CommitMismatch";
}

export interface CommitPlan {
  judged: Judged;
  subject: string;
  /** Called with the new commit's id before the branch moves, so a crash can tell whether it landed. */
  onCommitObject?: (commit: string) => void;
}

/**
 * Commits exactly the judged tree, plus gantry's own files as HEAD has them and the features' prd.json,
 * without staging the working tree again: commit-tree on that tree, then the branch moved only if it
 * still points where the judge saw it (compare-and-swap), with no hook run. The user's index is then
 * reset to the new commit. Returns the commit id; throws CommitMismatch when HEAD is not it afterwards.
 */
export async function commitJudged(scope: TreeScope, plan: CommitPlan): Promise<string> {
  const gantry = `${scope.prefix}${GANTRY_DIR}`;
  scope.index.head = undefined;
  // gantry's files as HEAD has them (config.json included: nobody's edit during the run is committed),
  // then the features' prd.json files from disk, which only the story store writes (prd/story-store.ts).
  const headGantry =
    plan.judged.sha === UNBORN ? undefined : await treeAt(scope, `${plan.judged.sha}:${gantry}`);
  const tree = (
    await runGitSteps(
      scope.cwd,
      [
        { args: ["read-tree", "-m", "-i", plan.judged.tree] },
        ...(headGantry ? [{ args: ["read-tree", `--prefix=${gantry}/`, headGantry] }] : []),
        {
          args: ["add", "-A", "--", `:(top,glob)${gantry}/features/*/prd.json`],
          tolerate: "are ignored by one of your .gitignore files",
        },
        { args: ["write-tree"] },
      ],
      scope.git.env,
    )
  ).trim();
  const parent = plan.judged.sha === UNBORN ? [] : ["-p", plan.judged.sha];
  const identity = await committerIdentity(scope.cwd);
  const commit = (
    await runGit(scope.cwd, ["commit-tree", tree, ...parent, "-m", plan.subject], {
      ...scope.git.env,
      ...identity,
    })
  ).trim();
  plan.onCommitObject?.(commit);
  await runGitSteps(scope.cwd, [
    {
      args: [
        "-c",
        "core.hooksPath=/dev/null",
        "update-ref",
        "-m",
        `gantry: ${plan.subject}`,
        "HEAD",
        commit,
        plan.judged.sha,
      ],
    },
    { args: ["-c", "core.hooksPath=/dev/null", "read-tree", "-m", "-i", commit] },
  ]);
  // The private index holds the commit's tree; without .gantry/ it is what the next judge starts from.
  await runGit(
    scope.cwd,
    ["rm", "-r", "-q", "-f", "--cached", "--ignore-unmatch", "--", `:(top)${gantry}`],
    scope.git.env,
  );
  scope.index.head = commit;
  const [head, headTree] = (await runGit(scope.cwd, ["rev-parse", "HEAD", "HEAD^{tree}"])).trim().split("\n");
  if (head !== commit || headTree !== tree)
    throw new CommitMismatch(
      `HEAD is ${head?.slice(0, 12)} after gantry committed ${commit.slice(0, 12)}: a hook or another process moved the branch`,
    );
  return commit;
}

/** The tree object at `rev:path`, or undefined when there is none. */
async function treeAt(scope: TreeScope, spec: string): Promise<string | undefined> {
  try {
    const id = (await runGit(scope.cwd, ["rev-parse", "--verify", "-q", spec], scope.git.env)).trim();
    return id || undefined;
  } catch {
    return undefined;
  }
}

/** Who commits: the repository's own identity, as `git commit` would take it (the private git has no config). */
async function committerIdentity(cwd: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const [role, prefix] of [
    ["GIT_AUTHOR_IDENT", "GIT_AUTHOR"],
    ["GIT_COMMITTER_IDENT", "GIT_COMMITTER"],
  ] as const) {
    const ident = (await runGit(cwd, ["var", role])).trim();
    const match = /^(.*) <([^>]*)> (\d+ [+-]\d{4})$/.exec(ident);
    if (!match)
      throw new Error(`git var ${role} printed ${JSON.stringify(ident)}, not "name <email> time zone"`);
    env[`${prefix}_NAME`] = match[1] ?? "";
    env[`${prefix}_EMAIL`] = match[2] ?? "";
  }
  return env;
}
