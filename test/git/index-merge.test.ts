import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { mergeUserIndex } from "../../src/git/index-merge.js";
import { type PlainIndex, type RawEntry, scanPlainIndex } from "../../src/git/plain-index.js";

/** An index file of `entries` (sorted), read back as scanPlainIndex reads it. */
function plainOf(entries: readonly RawEntry[]): PlainIndex {
  const parts = entries.map((entry) => {
    const out = Buffer.alloc((62 + entry.path.length + 8) & ~7);
    entry.stat.copy(out, 0);
    out.writeUInt32BE(entry.mode, 24);
    entry.id.copy(out, 40);
    out.writeUInt16BE(entry.path.length, 60);
    entry.path.copy(out, 62);
    return out;
  });
  const header = Buffer.alloc(12);
  header.write("DIRC", 0, "latin1");
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(entries.length, 8);
  const body = Buffer.concat([header, ...parts]);
  const plain = scanPlainIndex(Buffer.concat([body, createHash("sha1").update(body).digest()]));
  assert.ok(plain);
  return plain;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: "pipe" }).trim();
}

function project(): string {
  const top = mkdtempSync(join(tmpdir(), "gantry-merge-"));
  mkdirSync(join(top, "src"));
  writeFileSync(join(top, "src/x.ts"), "1\n");
  git(top, "init", "-q", "-b", "main");
  git(top, "add", "-A");
  git(top, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "base");
  return top;
}

describe("the user's index merged in node (index-merge.ts)", () => {
  it("writes every byte of the buffer it is lent: a reused buffer full of old bytes gives the same index", () => {
    const top = project();
    const id = (text: string) =>
      Buffer.from(
        execFileSync("git", ["hash-object", "-w", "--stdin"], {
          cwd: top,
          input: text,
          encoding: "utf8",
        }).trim(),
        "hex",
      );
    const entry = (path: string, text: string): RawEntry => ({
      path: Buffer.from(path),
      mode: 0o100644,
      id: id(text),
      stat: Buffer.alloc(40),
    });
    // Names of every length modulo 8 (1 to 8 bytes of padding), in both lists.
    const judged = ["a", "bb", "ccc", "dddd", "src/eeeee", "src/ffffff", "src/x.ts", "zzzzzzzz"].map((p) =>
      entry(p, `${p}\n`),
    );
    const gantry = [".gantry/a", ".gantry/bb", ".gantry/config.json", ".gantry/features/f/prd.json"].map(
      (p) => entry(p, `${p}\n`),
    );
    const old = scanPlainIndex(readFileSync(join(top, ".git/index")));
    assert.ok(old);
    const into = (byte: number) =>
      mergeUserIndex(
        { judged: plainOf(judged), gantry },
        old,
        0,
        () => true,
        (size) => Buffer.alloc(size + 64, byte).subarray(0, size),
      );
    const zeros = into(0);
    const garbage = into(0xa5);
    assert.ok(zeros && garbage);
    assert.deepEqual(garbage.bytes, zeros.bytes, "no byte left from the buffer's earlier use");
    const path = join(top, ".git/index-merged");
    writeFileSync(path, garbage.bytes);
    const env = { ...process.env, GIT_INDEX_FILE: path };
    // The same entries given to git (no stat data either: none had the old index's path and object).
    const byGit = join(top, ".git/index-by-git");
    const info = [...judged, ...gantry].map((e) => `100644 ${e.id.toString("hex")} 0\t${e.path}\n`).join("");
    execFileSync("git", ["update-index", "--index-info"], {
      cwd: top,
      input: info,
      env: { ...process.env, GIT_INDEX_FILE: byGit },
    });
    const debug = (index: string) =>
      execFileSync("git", ["ls-files", "-s", "--debug"], {
        cwd: top,
        encoding: "utf8",
        env: { ...process.env, GIT_INDEX_FILE: index },
      });
    assert.equal(debug(path), debug(byGit));
    execFileSync("git", ["fsck", "--strict", "--no-progress"], { cwd: top, env, stdio: "pipe" });
  });
});
