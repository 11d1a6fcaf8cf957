import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { mergeUserIndex } from "../../src/git/index-merge.js";
import { type RawEntry, scanPlainIndex } from "../../src/git/plain-index.js";
import { committedRepo, indexDebug, plainOf } from "../support/git-fixtures.js";

describe("the user's index merged in node (index-merge.ts)", () => {
  it("writes every byte of the buffer it is lent: a reused buffer full of old bytes gives the same index", () => {
    const top = committedRepo({ "src/x.ts": "1\n" }, "merge");
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
    assert.equal(indexDebug(top, path), indexDebug(top, byGit));
    execFileSync("git", ["fsck", "--strict", "--no-progress"], { cwd: top, env, stdio: "pipe" });
  });
});
