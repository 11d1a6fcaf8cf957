import { homedir } from "node:os";
import { delimiter, isAbsolute, join, resolve, sep } from "node:path";
import { isExecutableFile } from "./find-executable.js";

/**
 * Folders a sandboxed session can write (sandbox.ts binds them writable): a program found there could
 * have been planted by an agent, so gantry never runs its own programs from them.
 */
export function sessionWritable(env: NodeJS.ProcessEnv = process.env, root?: string): string[] {
  const home = env.HOME || homedir();
  const writable = [home, "/tmp", "/var/tmp", "/dev/shm"];
  if (env.TMPDIR && isAbsolute(env.TMPDIR)) writable.push(env.TMPDIR);
  for (const name of ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"]) {
    const value = env[name];
    if (value && isAbsolute(value)) writable.push(value);
  }
  if (root) writable.push(root);
  return writable.map((path) => resolve(path));
}

function inside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

/**
 * One of gantry's own programs (bwrap, setpriv, git): the first executable `name` in a PATH entry no
 * session can write (a relative entry, or one in the home, /tmp or the tree, is skipped). The shell
 * would find an agent's `~/.cargo/bin/git` first; gantry does not.
 */
export function trustedProgram(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
  root?: string,
): string | undefined {
  const writable = sessionWritable(env, root);
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const folder = resolve(dir);
    if (writable.some((w) => inside(folder, w))) continue;
    if (isExecutableFile(join(folder, name))) return join(folder, name);
  }
  return undefined;
}
