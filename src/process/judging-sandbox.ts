import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { shellQuote } from "../util/shell-quote.js";
import { hiddenPaths, inside, JUDGING_ISOLATION, judgingBase } from "./judging-binds.js";
import { copyWrapper } from "./judging-copy.js";
import { confine } from "./wrapper-scope.js";

/**
 * What keeps a judging command's writes from surviving it: an overlayfs layer mounted inside its
 * namespaces, or, where the kernel refuses that mount (an unprivileged user on some kernels), a scratch
 * copy of the tree gantry makes before and removes after (judging-copy.ts).
 */
export type JudgingLayer = "overlay" | "copy";

/** The programs a judging sandbox is made of, resolved once per run from places no session can write. */
export type JudgingPrograms =
  /** setpriv (util-linux) drops every capability after the layers are mounted. */
  | { bwrap: string; layer: "overlay"; setpriv: string }
  /** setpriv, when there is one, ends the copying shell (and bwrap with it) when gantry ends. */
  | { bwrap: string; layer: "copy"; setpriv?: string };

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
 * (judging-binds.ts). With the `copy` layer, the tree is a scratch copy instead (judging-copy.ts).
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
  const { args, visible } = judgingBase(programs.bwrap, { tree: target, repository, home }, env);
  const hidden = hiddenPaths([target, repository], env).filter(visible);
  // Nothing it writes lands anywhere gantry judges.
  const scope = { tree: target, shielded: ["/"] };
  if (programs.layer === "copy")
    return confine(copyWrapper(args, { tree: target, hidden, setpriv: programs.setpriv }, env), scope);
  const layered = overlayTargets(target, home);
  layered.forEach((path, index) => {
    args.push("--ro-bind", path, `${LAYERS}/lower-${index}`);
  });
  args.push(
    "--setenv",
    "TMPDIR",
    "/tmp",
    ...JUDGING_ISOLATION,
    "--cap-add",
    "CAP_SYS_ADMIN",
    "--",
    "/bin/sh",
    "-c",
    prelude(layered, hidden, programs.setpriv),
    "gantry-judge",
  );
  return confine(args, scope);
}

/** The home (when it exists and is not `/`) and the tree, the outer one first so the tree's layer is on top. */
function overlayTargets(tree: string, home: string): string[] {
  const targets: string[] = [];
  if (home !== "/" && existsSync(home) && !inside(home, tree)) targets.push(home);
  targets.push(tree);
  return targets;
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
