import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, isAbsolute, join, resolve, sep } from "node:path";
import { shellQuote } from "../util/shell-quote.js";
import { gantryStateDirectory } from "./state-directory.js";
import { confine } from "./wrapper-scope.js";

/** The programs a judging sandbox is made of, resolved once per run from places no session can write. */
export interface JudgingPrograms {
  bwrap: string;
  /** util-linux's setpriv: drops every capability after the layers are mounted. */
  setpriv: string;
}

/** How a run's judging commands are sandboxed: the programs, and the repository whose trees they judge. */
export interface JudgingSandbox {
  programs: JudgingPrograms;
  /** The repository's main working tree: its `.gantry/` is hidden too (a story's worktree lies inside it). */
  repository: string;
}

/** Where the throw-away layers' upper and work folders and the lower binds live, inside the sandbox's fresh /tmp. */
const LAYERS = "/tmp/.gantry-layers";

/**
 * The bwrap command line (up to and including the command's `/bin/sh -c` prefix's place) that runs a
 * judging command (tests, lint, typecheck, checks, reviewers' scripts) over `tree`:
 *
 * - its own user, mount and PID namespaces: nothing it starts outlives it (bwrap's PID 1 ends, the kernel
 *   kills the rest); no capability once the layers are mounted (setpriv), so it cannot unmount them;
 * - `tree` and the home seen through an overlayfs layer in a fresh tmpfs: the command may write (caches,
 *   snapshots, reports) and nothing it wrote survives it;
 * - a fresh /tmp (TMPDIR points there); gantry's state directory and the tree's `.gantry/` hidden under
 *   empty tmpfs mounts (ledger keys, serve token, answers, run state, the judge's git directory).
 *
 * What of the tree, the repository and PATH lies under /tmp is bound back read-only over the fresh one
 * (a scratch checkout links the repository's `node_modules`), so the command finds them as before.
 */
export function judgingWrapper(
  sandbox: JudgingSandbox,
  tree: string,
  env: NodeJS.ProcessEnv = process.env,
): readonly string[] {
  const { programs } = sandbox;
  const repository = resolve(sandbox.repository);
  const target = resolve(tree);
  const home = resolve(env.HOME || homedir());
  const layered = overlayTargets(target, home);
  const args = [programs.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  const backUnderTmp = [...new Set([repository, target, home, ...pathEntries(env)])].filter(
    (path) => inside(path, "/tmp") && existsSync(path),
  );
  for (const path of backUnderTmp) args.push("--ro-bind", path, path);
  // What lies in /tmp and was not bound back is gone already: nothing to hide there.
  const visible = (path: string) => !inside(path, "/tmp") || backUnderTmp.some((back) => inside(path, back));
  layered.forEach((path, index) => {
    args.push("--ro-bind", path, `${LAYERS}/lower-${index}`);
  });
  args.push(
    "--setenv",
    "TMPDIR",
    "/tmp",
    "--unshare-user",
    "--unshare-pid",
    "--die-with-parent",
    "--cap-add",
    "CAP_SYS_ADMIN",
    "--",
    "/bin/sh",
    "-c",
    prelude(layered, hiddenPaths([target, repository], env).filter(visible), programs.setpriv),
    "gantry-judge",
  );
  // Nothing it writes lands anywhere gantry judges.
  return confine(args, { tree: target, shielded: ["/"] });
}

/** The home (when it exists and is not `/`) and the tree, the outer one first so the tree's layer is on top. */
function overlayTargets(tree: string, home: string): string[] {
  const targets: string[] = [];
  if (home !== "/" && existsSync(home) && !inside(home, tree)) targets.push(home);
  targets.push(tree);
  return targets;
}

/** gantry's state and the tree's `.gantry/`: covered again after the layers, which would show them. */
function hiddenPaths(trees: string[], env: NodeJS.ProcessEnv): string[] {
  const paths = [gantryStateDirectory(env), ...trees.map((tree) => join(tree, ".gantry"))];
  return [...new Set(paths)].filter((path) => existsSync(path));
}

/**
 * The shell that runs first inside the namespaces, with CAP_SYS_ADMIN there: mounts the layers and the
 * hiding tmpfs, goes back into its folder through the new mounts, then runs the command ("$@") with no
 * capability at all.
 */
function prelude(layered: string[], hidden: string[], setpriv: string): string {
  const lines = ["set -e", `umask 022`];
  layered.forEach((path, index) => {
    const upper = `${LAYERS}/upper-${index}`;
    const work = `${LAYERS}/work-${index}`;
    lines.push(
      `command -p mkdir -p ${upper} ${work}`,
      `command -p mount -t overlay gantry-judge -o lowerdir=${LAYERS}/lower-${index},upperdir=${upper},workdir=${work} ${shellQuote(path)}`,
    );
  });
  for (const path of hidden)
    lines.push(`command -p mount -t tmpfs -o size=4k,mode=0500 gantry-hidden ${shellQuote(path)}`);
  lines.push(
    'cd "$PWD"',
    `exec ${shellQuote(setpriv)} --bounding-set=-all --inh-caps=-all --ambient-caps=-all --no-new-privs -- "$@"`,
  );
  return lines.join("\n");
}

function pathEntries(env: NodeJS.ProcessEnv): string[] {
  return (env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir && isAbsolute(dir))
    .map((dir) => resolve(dir));
}

function inside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}
