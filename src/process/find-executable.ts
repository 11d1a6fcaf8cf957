import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/** A regular file this process may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable file named `name` in a PATH directory, as the shell would find it. */
export function findOnPath(name: string, pathVariable = process.env.PATH ?? ""): string | undefined {
  for (const dir of pathVariable.split(delimiter)) {
    if (dir && isExecutableFile(join(dir, name))) return join(dir, name);
  }
  return undefined;
}
