import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIN_SPLIT_ENTRIES } from "../../src/git/add-on-two-cores.js";
import { type PlainIndex, type RawEntry, scanPlainIndex } from "../../src/git/plain-index.js";
import { commitAll, git, write } from "./fixture-repo.js";

const made: string[] = [];
let cleanup = false;

/**
 * A repository on branch main whose one commit, "base", holds these files (path → content), removed when
 * the test process exits. `name` goes in the folder's name.
 */
export function committedRepo(files: Readonly<Record<string, string>>, name = "repo"): string {
  const top = mkdtempSync(join(tmpdir(), `gantry-${name}-`));
  made.push(top);
  if (!cleanup) {
    cleanup = true;
    process.on("exit", () => {
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    });
  }
  for (const [path, content] of Object.entries(files)) write(top, path, content);
  commitAll(top);
  return top;
}

/**
 * A committed gantry project (.gantry/config.json, feature f's prd.json, src/x.ts, and `extra`) whose
 * user's index has every file's stat data, as git's status leaves it.
 */
export function gantryProject(name: string, extra: Readonly<Record<string, string>> = {}): string {
  const top = committedRepo(
    {
      ".gantry/features/f/prd.json": "{}\n",
      ".gantry/config.json": "{}\n",
      "src/x.ts": "1\n",
      ...extra,
    },
    name,
  );
  git(top, "update-index", "--refresh");
  return top;
}

/** A committed repository whose index is large enough for the two-core add and the commit made ahead. */
export function largeRepo(name: string): string {
  const files: Record<string, string> = { ".gantry/config.json": "{}\n" };
  for (let f = 0; f < 20; f++)
    for (let k = 0; k * 20 < MIN_SPLIT_ENTRIES + 100; k++)
      files[`m${f}/file-${k}-named-as-in-a-real-project.txt`] = `${f} ${k}\n`;
  return committedRepo(files, name);
}

/** An index file of `entries` (sorted), read back as scanPlainIndex reads it. */
export function plainOf(entries: readonly RawEntry[]): PlainIndex {
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

/** `git ls-files -s --debug` of an index file: every entry with its stat data. */
export function indexDebug(top: string, index: string): string {
  return execFileSync("git", ["ls-files", "-s", "--debug"], {
    cwd: top,
    encoding: "utf8",
    env: { ...process.env, GIT_INDEX_FILE: index },
  });
}

/** What git's `read-tree -m -i HEAD` makes of `index` (a copy of the user's index), as indexDebug lists it. */
export function gitReadTreeOf(top: string, index: string): string {
  execFileSync("git", ["read-tree", "-m", "-i", "HEAD"], {
    cwd: top,
    env: { ...process.env, GIT_INDEX_FILE: index },
  });
  return indexDebug(top, index);
}
