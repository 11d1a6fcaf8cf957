import { lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { shellQuote } from "../util/shell-quote.js";
import { DEPENDENCY_FOLDERS } from "./dependency-folders.js";
import { JUDGING_ISOLATION } from "./judging-binds.js";
import { processAlive } from "./owned-folder.js";
import { gantryStateDirectory } from "./state-directory.js";

/** The argument the host shell replaces with the copy's folder, made only when the command starts. */
const COPY_MARK = "@gantry-judging-copy@";

/**
 * Where judging commands write instead of the real home: caches go to the sandbox's fresh /tmp (npm's,
 * pip's, Go's build cache), so runners that need a writable cache work with the home read-only.
 */
const CACHES = {
  TMPDIR: "/tmp",
  XDG_CACHE_HOME: "/tmp/.cache",
  GOCACHE: "/tmp/.cache/go-build",
  npm_config_cache: "/tmp/.npm",
} as const;

/** The folder of this gantry process's copies, under its state directory, which every sandbox hides. */
export function copiesFolder(env: NodeJS.ProcessEnv, pid = process.pid): string {
  return join(gantryStateDirectory(env), "judging-copies", String(pid));
}

/**
 * The `copy` layer's command line: a host shell copies `tree` (`cp -a --reflink=auto`) into a new folder
 * under `copiesFolder`, runs bwrap with that copy bound at the tree's path, and removes the copy when the
 * command ends (a SIGKILL'd one is swept by the next run: `sweepCopies`). Nothing is mounted inside the
 * namespaces, so it works where the kernel refuses overlayfs to an unprivileged user.
 *
 * - the tree's existing dependency folders (`node_modules`, `.venv`, `venv`) and a `.git` folder are not
 *   copied but bound read-only (a `node_modules/.cache` that exists gets an empty tmpfs); `.gantry/` is
 *   not copied and hidden like `hidden`;
 * - the home stays read-only; caches go to the fresh /tmp (`CACHES`);
 * - no capability (`--cap-drop ALL`), its own user, mount and PID namespaces, as with the overlay.
 */
export function copyWrapper(
  base: string[],
  paths: { tree: string; hidden: string[]; setpriv?: string | undefined },
  env: NodeJS.ProcessEnv,
): string[] {
  const { tree } = paths;
  const boundReadOnly = [...DEPENDENCY_FOLDERS, ".git"].filter((name) => isFolder(join(tree, name)));
  const notCopied = [...boundReadOnly, ...(isFolder(join(tree, ".gantry")) ? [".gantry"] : [])];
  const args = [...base, "--bind", COPY_MARK, tree];
  for (const name of boundReadOnly) args.push("--ro-bind", join(tree, name), join(tree, name));
  for (const name of DEPENDENCY_FOLDERS) {
    const cache = join(tree, name, ".cache");
    if (boundReadOnly.includes(name) && isFolder(cache)) args.push("--tmpfs", cache);
  }
  for (const path of paths.hidden) args.push("--tmpfs", path);
  for (const [name, value] of Object.entries(CACHES)) args.push("--setenv", name, value);
  args.push(...JUDGING_ISOLATION, "--cap-drop", "ALL", "--");
  // bwrap dies with its parent, this shell; the shell with gantry when setpriv can say so.
  const dieWithGantry = paths.setpriv ? [paths.setpriv, "--pdeathsig", "KILL", "--"] : [];
  const shell = ["/bin/sh", "-c", hostShell(tree, notCopied, copiesFolder(env)), "gantry-judge-copy"];
  return [...dieWithGantry, ...shell, ...args];
}

/**
 * Runs outside the sandbox, as gantry: makes the copy (system programs only), puts its path
 * in place of COPY_MARK among its arguments (bwrap's command line and the command), runs them and removes
 * the copy. A failed copy fails the command with cp's message.
 */
function hostShell(tree: string, notCopied: string[], folder: string): string {
  const from = shellQuote(tree);
  const skip = notCopied.map((name) => `! -name ${shellQuote(name)}`).join(" ");
  return [
    "set -e",
    "umask 077",
    `command -p mkdir -p ${shellQuote(folder)}`,
    `copy=$(command -p mktemp -d ${shellQuote(`${folder}/copy-XXXXXX`)})`,
    `trap 'command -p rm -rf "$copy"' EXIT`,
    "trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM",
    `command -p chmod --reference=${from} "$copy"`,
    // find looks cp up on the system's PATH, never the caller's (a session may write one of its folders).
    `command -p env PATH="$(command -p getconf PATH)" find -H ${from} -mindepth 1 -maxdepth 1 ${skip} -exec cp -a --reflink=auto -t "$copy" -- {} +`,
    ...notCopied.map((name) => `command -p mkdir -- "$copy"/${shellQuote(name)}`),
    'for arg do shift; if [ "$arg" = ' +
      shellQuote(COPY_MARK) +
      ' ]; then arg=$copy; fi; set -- "$@" "$arg"; done',
    "set +e",
    '"$@"',
    "exit $?",
  ].join("\n");
}

/** Removes the copies of gantry processes that are gone (one killed before its shell could remove them). */
export function sweepCopies(env: NodeJS.ProcessEnv): void {
  const parent = join(gantryStateDirectory(env), "judging-copies");
  let pids: string[];
  try {
    pids = readdirSync(parent);
  } catch {
    return;
  }
  for (const pid of pids) {
    if (/^\d+$/.test(pid) && !processAlive(Number(pid)))
      rmSync(join(parent, pid), { recursive: true, force: true });
  }
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
