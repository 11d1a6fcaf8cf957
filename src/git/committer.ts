import { runGit } from "./exec.js";
import { gitReason } from "./git-error.js";
import { sharedConfigText } from "./shared-config.js";

/** GIT_AUTHOR_NAME / _EMAIL and GIT_COMMITTER_NAME / _EMAIL, as the commit's environment takes them. */
export type CommitterIdentity = Readonly<Record<string, string>>;

/** What git's identity is made of besides the config files: these variables, and who the user is. */
const IDENTITY_VARIABLES = [
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "EMAIL",
  "HOME",
  "XDG_CONFIG_HOME",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_NOSYSTEM",
  "GIT_CONFIG_COUNT",
];

/** Identities read, by repository, environment and config text: every worktree of a parallel run shares one. */
const known = new Map<string, Promise<CommitterIdentity>>();

/**
 * Who commits: the repository's own identity, as `git commit` would take it (the private git has no
 * config), or a GitError when git has none. It comes from the config and the environment, so it is read
 * once for every worktree of a repository while both are the same (the key holds the config files' text);
 * where git's config could differ between worktrees (a worktree config, an include) it is read each time.
 */
export function committerIdentity(
  cwd: string,
  dirs: { gitDir: string; commonDir: string },
): Promise<CommitterIdentity> {
  const config = sharedConfigText(dirs);
  if (config === undefined) return readIdentity(cwd);
  const key = [dirs.commonDir, ...IDENTITY_VARIABLES.map((name) => process.env[name] ?? "\0"), config].join(
    "\n",
  );
  let identity = known.get(key);
  if (!identity) {
    if (known.size >= 16) known.clear();
    identity = readIdentity(cwd);
    known.set(key, identity);
    identity.catch(() => known.delete(key));
  }
  return identity;
}

/** Why `git commit` would refuse here (no user.name / user.email), in one line; undefined when it can commit. */
export async function identityProblem(
  cwd: string,
  dirs: { gitDir: string; commonDir: string },
): Promise<string | undefined> {
  try {
    await committerIdentity(cwd, dirs);
    return undefined;
  } catch (error) {
    return `git has no identity to commit with (${gitReason(error)}); set user.name and user.email with git config`;
  }
}

async function readIdentity(cwd: string): Promise<CommitterIdentity> {
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
  return Object.freeze(env);
}
