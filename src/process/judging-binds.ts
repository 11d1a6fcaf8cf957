import { existsSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve, sep } from "node:path";
import { gantryStateDirectory } from "./state-directory.js";

/**
 * What every judging sandbox starts with, whichever layer keeps its writes (overlay or scratch copy):
 * `/` read-only, fresh /dev and /proc, a fresh tmpfs on /tmp, and what of the tree, the repository, the
 * home and PATH lies under /tmp bound back read-only over it (a scratch checkout links the repository's
 * `node_modules`), so the command finds them as before.
 */
export function judgingBase(
  bwrap: string,
  paths: { tree: string; repository: string; home: string },
  env: NodeJS.ProcessEnv,
): { args: string[]; visible: (path: string) => boolean } {
  const args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  const backUnderTmp = [...new Set([paths.repository, paths.tree, paths.home, ...pathEntries(env)])].filter(
    (path) => inside(path, "/tmp") && existsSync(path),
  );
  for (const path of backUnderTmp) args.push("--ro-bind", path, path);
  // What lies in /tmp and was not bound back is gone already: nothing to hide there.
  const visible = (path: string) => !inside(path, "/tmp") || backUnderTmp.some((back) => inside(path, back));
  return { args, visible };
}

/** The namespaces every judging command gets: its own user, mount and PID ones; it dies with gantry. */
export const JUDGING_ISOLATION = ["--unshare-user", "--unshare-pid", "--die-with-parent"] as const;

/** gantry's state and the trees' `.gantry/`: hidden from every judging command (ledger keys, serve token, run state). */
export function hiddenPaths(trees: string[], env: NodeJS.ProcessEnv): string[] {
  const paths = [gantryStateDirectory(env), ...trees.map((tree) => join(tree, ".gantry"))];
  return [...new Set(paths)].filter((path) => existsSync(path));
}

function pathEntries(env: NodeJS.ProcessEnv): string[] {
  return (env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir && isAbsolute(dir))
    .map((dir) => resolve(dir));
}

export function inside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}
