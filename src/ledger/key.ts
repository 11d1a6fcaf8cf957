import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { InputError } from "../config/input-error.js";

/** Bytes of a ledger key: as long as the HMAC-SHA256 output. */
export const KEY_BYTES = 32;

/**
 * Where ledger keys live: `$XDG_STATE_HOME/gantry/keys` (XDG_STATE_HOME defaulting to ~/.local/state).
 * Outside every working tree, so an agent session confined to the tree (or sandboxed with this
 * directory hidden) cannot read the key it would need to forge a verdict.
 */
export function keyDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : undefined;
  return join(state ?? join(env.HOME || homedir(), ".local", "state"), "gantry", "keys");
}

/**
 * The repository's git common directory (shared by all its worktrees), realpath'd, found from the
 * files alone: `.git` is that directory, or a file naming a worktree's git dir whose `commondir` points to it.
 */
export function gitCommonDir(root: string): string | undefined {
  let dir = realpathSync(root);
  for (;;) {
    const dotGit = join(dir, ".git");
    if (existsSync(dotGit)) return realpathSync(commonDirOf(dotGit));
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function commonDirOf(dotGit: string): string {
  if (statSync(dotGit).isDirectory()) return dotGit;
  const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
  if (!pointer) return dotGit;
  const gitDir = resolve(dirname(dotGit), pointer);
  const common = join(gitDir, "commondir");
  return existsSync(common) ? resolve(gitDir, readFileSync(common, "utf8").trim()) : gitDir;
}

/** The repository id a key is filed under: SHA-256 (hex) of the realpath of its git common directory. */
export function repoId(commonDir: string): string {
  return createHash("sha256").update(commonDir).digest("hex");
}

export interface LedgerKey {
  key: Buffer;
  /** The key file, for messages. */
  file: string;
}

/** Where the key of the repository at `root` is (or would be) kept; undefined outside a git repository. */
export function keyFile(root: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const common = gitCommonDir(root);
  return common === undefined ? undefined : join(keyDirectory(env), `${repoId(common)}.key`);
}

/** The repository's ledger key if this machine has one (a reader never creates it). */
export function readLedgerKey(root: string, env: NodeJS.ProcessEnv = process.env): LedgerKey | undefined {
  const file = keyFile(root, env);
  if (file === undefined || !existsSync(file)) return undefined;
  return { key: checkedKey(file), file };
}

/**
 * The repository's ledger key, created on first use: 32 random bytes, mode 0600 in a 0700 directory.
 * Two runs creating it at once agree: the key is written aside and hard-linked into place, and the
 * loser of that race reads the winner's.
 */
export function ledgerKey(root: string, env: NodeJS.ProcessEnv = process.env): LedgerKey {
  const file = keyFile(root, env);
  if (file === undefined) throw new Error(`${root} is not inside a git repository; the ledger needs one`);
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  if (!existsSync(file)) {
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(temp, randomBytes(KEY_BYTES), { mode: 0o600, flag: "wx" });
    try {
      linkSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      unlinkSync(temp);
    }
  }
  return { key: checkedKey(file), file };
}

/** A key file that others can read is no secret; one of the wrong length is not a key gantry wrote. */
function checkedKey(file: string): Buffer {
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new InputError(
      file,
      "",
      `ledger key readable by others (mode ${mode.toString(8)}); expected 600`,
      "GANTRY_E_LEDGER_KEY",
    );
  }
  const key = readFileSync(file);
  if (key.length !== KEY_BYTES) {
    throw new InputError(
      file,
      "",
      `ledger key of ${key.length} bytes; expected ${KEY_BYTES} random bytes`,
      "GANTRY_E_LEDGER_KEY",
    );
  }
  return key;
}
