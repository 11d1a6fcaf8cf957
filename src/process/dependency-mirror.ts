import { existsSync, lstatSync, mkdirSync, readdirSync, realpathSync, symlinkSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";

/**
 * A worktree has the commit's files but not the installed dependencies (they are ignored). Each
 * node_modules of the user's checkout (`dirs`: the project directory and the repository top) is mirrored
 * into the worktree `top`: a real folder, one link per package. A real folder, not one link, because a
 * `.gitignore` line `node_modules/` matches folders only: git would see a link of that name as a new file.
 * A workspace package linked to a directory of the repository is linked to that directory in the worktree
 * instead: the worktree's production code, not the user's, is what its tests must see.
 */
export function mirrorNodeModules(userTop: string, dirs: readonly string[], top: string): void {
  for (const dir of new Set(dirs)) {
    const from = join(dir, "node_modules");
    const to = join(top, relative(userTop, dir), "node_modules");
    if (!existsSync(from) || existsSync(to)) continue;
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from)) {
      const entry = join(from, name);
      if (name.startsWith("@") && isRealDir(entry)) {
        mkdirSync(join(to, name));
        for (const child of readdirSync(entry)) link(join(entry, child), join(to, name, child));
      } else link(entry, join(to, name));
    }
  }

  function link(entry: string, at: string): void {
    let target = entry;
    try {
      if (lstatSync(entry).isSymbolicLink()) {
        const real = realpathSync(entry);
        const inRepo = relative(userTop, real);
        if (!inRepo.startsWith("..") && !isAbsolute(inRepo) && !inRepo.split(sep).includes("node_modules")) {
          target = join(top, inRepo);
        }
      }
      symlinkSync(target, at);
    } catch {
      // A dangling or unreadable entry: the tests will say whether they needed it.
    }
  }
}

function isRealDir(path: string): boolean {
  try {
    const stat = lstatSync(path);
    return stat.isDirectory() && !stat.isSymbolicLink();
  } catch {
    return false;
  }
}
