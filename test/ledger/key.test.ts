import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  gitCommonDir,
  KEY_BYTES,
  keyDirectory,
  keyFile,
  ledgerKey,
  readLedgerKey,
  repoId,
} from "../../src/ledger/key.js";

const work = mkdtempSync(join(tmpdir(), "gantry-key-"));
after(() => rmSync(work, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
let count = 0;
function repo(): string {
  const root = join(work, `repo-${++count}`);
  mkdirSync(root);
  git(root, "init", "-q", "-b", "main");
  return root;
}
const envAt = (name: string): NodeJS.ProcessEnv => ({
  XDG_STATE_HOME: join(work, name),
  HOME: join(work, "home"),
});

describe("ledger key", () => {
  test("created on first use: 32 random bytes, mode 0600, in a 0700 directory under XDG_STATE_HOME", () => {
    const root = repo();
    const env = envAt("state-a");
    assert.equal(readLedgerKey(root, env), undefined, "a reader never creates the key");
    const { key, file } = ledgerKey(root, env);
    assert.equal(key.length, KEY_BYTES);
    assert.equal(
      file,
      join(work, "state-a", "gantry", "keys", `${repoId(realpathSync(join(root, ".git")))}.key`),
    );
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(work, "state-a", "gantry", "keys")).mode & 0o777, 0o700);
    assert.deepEqual(readFileSync(file), key);
    assert.deepEqual(ledgerKey(root, env).key, key, "the second use reads the same key");
    assert.deepEqual(readLedgerKey(root, env)?.key, key);
    assert.notDeepEqual(ledgerKey(repo(), env).key, key, "another repository has its own key");
  });

  test("without XDG_STATE_HOME (or with a relative one) the key is under ~/.local/state", () => {
    assert.equal(keyDirectory({ HOME: "/h" }), "/h/.local/state/gantry/keys");
    assert.equal(keyDirectory({ HOME: "/h", XDG_STATE_HOME: "rel" }), "/h/.local/state/gantry/keys");
    assert.equal(keyDirectory({ HOME: "/h", XDG_STATE_HOME: "/s" }), "/s/gantry/keys");
  });

  test("the repo id is the repository's common git dir: the same from a subdirectory and a linked worktree", () => {
    const root = repo();
    git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "x");
    mkdirSync(join(root, "sub"));
    const linked = join(work, `linked-${count}`);
    git(root, "worktree", "add", "-q", linked);
    const common = realpathSync(join(root, ".git"));
    assert.equal(gitCommonDir(root), common);
    assert.equal(gitCommonDir(join(root, "sub")), common);
    assert.equal(gitCommonDir(linked), common);
    assert.equal(keyFile(linked, envAt("s")), keyFile(root, envAt("s")));
  });

  test("a key others can read, or of the wrong length, is refused with the file named", () => {
    const root = repo();
    const env = envAt("state-b");
    const { file } = ledgerKey(root, env);
    chmodSync(file, 0o644);
    assert.throws(() => readLedgerKey(root, env), /readable by others \(mode 644\); expected 600/);
    chmodSync(file, 0o600);
    writeFileSync(file, Buffer.alloc(5));
    assert.throws(() => ledgerKey(root, env), new RegExp(`${file}: ledger key of 5 bytes; expected 32`));
  });
});
