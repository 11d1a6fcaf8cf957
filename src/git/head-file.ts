import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { runGit } from "./exec.js";
import { UNBORN } from "./judge.js";
import { OBJECT_ID, packedRefs } from "./ref-files.js";

/**
 * HEAD's commit read from the repository's files, the way git stores it in the common case: HEAD names
 * a branch whose id is in a loose ref file or in packed-refs, or HEAD is detached. Undefined for anything
 * else (an unborn branch, a symbolic ref, reftable, GIT_COMMON_DIR set, a file that does not read as
 * expected): the caller then asks git. Reading a file costs microseconds; a git process, milliseconds.
 */
export function headFromFiles(gitDir: string): string | undefined {
  if (process.env.GIT_COMMON_DIR) return undefined;
  try {
    const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
    if (OBJECT_ID.test(head)) return head;
    const ref = /^ref: (refs\/heads\/\S+)$/.exec(head)?.[1];
    if (ref === undefined || ref.split("/").some((part) => part === "" || part === "." || part === ".."))
      return undefined;
    const common = commonDir(gitDir);
    const loose = readIfExists(join(common, ref))?.trim();
    if (loose !== undefined) return OBJECT_ID.test(loose) ? loose : undefined;
    return packedRefs(common).get(ref);
  } catch {
    return undefined;
  }
}

/** A linked worktree's git dir names the shared one in `commondir`; the main one is its own. */
function commonDir(gitDir: string): string {
  const pointer = readIfExists(join(gitDir, "commondir"))?.trim();
  if (!pointer) return gitDir;
  return isAbsolute(pointer) ? pointer : join(gitDir, pointer);
}

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * The branch HEAD names, read from the HEAD file: null when HEAD is detached (a commit id), undefined when
 * the file does not tell (reftable keeps a placeholder there, GIT_COMMON_DIR set, anything unusual).
 */
export function branchFromHeadFile(gitDir: string): string | null | undefined {
  if (process.env.GIT_COMMON_DIR || process.env.GIT_DIR) return undefined;
  try {
    if (existsSync(join(commonDir(gitDir), "reftable"))) return undefined;
    const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
    if (OBJECT_ID.test(head)) return null;
    const name = /^ref: refs\/heads\/(\S+)$/.exec(head)?.[1];
    if (name === undefined || name.split("/").some((part) => part === "" || part === "." || part === ".."))
      return undefined;
    return name;
  } catch {
    return undefined;
  }
}

/** HEAD's commit: from the files where they tell, else git's; UNBORN when there is none. */
export async function readHead(projectRoot: string, gitDir: string): Promise<string> {
  const fromFiles = headFromFiles(gitDir);
  if (fromFiles !== undefined) return fromFiles;
  try {
    return (await runGit(projectRoot, ["rev-parse", "--verify", "-q", "HEAD"])).trim() || UNBORN;
  } catch {
    return UNBORN;
  }
}

/** The checked-out branch, undefined on a detached HEAD: the HEAD file names it when it can (one git program fewer a merge); git otherwise. */
export async function readBranch(projectRoot: string, gitDir: string): Promise<string | undefined> {
  const fromFile = branchFromHeadFile(gitDir);
  if (fromFile !== undefined) return fromFile ?? undefined;
  try {
    return (await runGit(projectRoot, ["symbolic-ref", "--quiet", "--short", "HEAD"])).trim() || undefined;
  } catch {
    return undefined;
  }
}
