import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type CheckedFolders,
  ignoredPaths,
  listIgnored,
  newIgnoredSources,
  relistIgnored,
  unchangedSince,
} from "../../src/git/ignored-files.js";
import { checkedFolders, readUntrackedFolders } from "../../src/git/untracked-cache.js";

const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });
const write = (root: string, path: string, text = "x\n") => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
const sorted = (paths: Set<string>) => [...paths].sort();

/** Tracked folders (70 of them one level down: more than one 64-bit word of each bitmap), ignored and untracked ones. */
function repo(): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-untracked-"));
  temps.push(root);
  git(root, "init", "-q", "-b", "main");
  write(root, ".gitignore", "*.log\nbuild/\ncache/\n");
  write(root, "src/a.js");
  write(root, "src/deep/b.js");
  write(root, "src/deep/old.log");
  for (let i = 0; i < 70; i++) write(root, `many/f${i}/x.txt`);
  write(root, "build/out.js");
  git(root, "add", "-A");
  git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
  write(root, "notes/sub/todo.txt");
  return root;
}

/** The judge's stat pass as the private git runs it: status with the untracked cache, the extensions' offset kept. */
function status(root: string, eoie = true): void {
  const config = ["-c", "core.untrackedCache=true", "-c", `index.recordEndOfIndexEntries=${eoie}`];
  execFileSync("git", [...config, "status", "--porcelain", "-z"], {
    cwd: root,
    env: { ...process.env, GIT_OPTIONAL_LOCKS: "1" },
  });
}

/** A status now and the folders it checked, as repo.ts gives them to the listing. */
function checkedNow(root: string): CheckedFolders {
  const started = Date.now();
  status(root);
  const folders = readUntrackedFolders(join(root, ".git", "index"));
  assert.ok(folders, "the untracked cache is read from the index's end");
  return { started, folders };
}

describe("git's untracked cache read from the index", () => {
  it("holds each folder git's status checked, with the ctime it saw; not ignored or untracked folders", () => {
    const root = repo();
    status(root);
    const folders = readUntrackedFolders(join(root, ".git", "index"));
    assert.ok(folders);
    const expected = [
      "",
      "src/",
      "src/deep/",
      "many/",
      ...Array.from({ length: 70 }, (_, i) => `many/f${i}/`),
    ];
    assert.deepEqual([...folders.keys()].sort(), expected.sort());
    for (const [rel, ctime] of folders)
      assert.equal(ctime, Math.floor(lstatSync(join(root, rel)).ctimeMs / 1000), `ctime of ${rel || "."}`);
  });

  it("reads nothing it cannot check: no end-of-entries offset, a wrong header hash, no untracked cache", () => {
    const root = repo();
    status(root, false);
    assert.equal(readUntrackedFolders(join(root, ".git", "index")), undefined, "no EOIE");
    status(root);
    const index = join(root, ".git", "index");
    const bytes = readFileSync(index);
    const hashAt = bytes.length - 20 - 20;
    bytes[hashAt] = (bytes[hashAt] as number) ^ 1;
    writeFileSync(index, bytes);
    assert.equal(readUntrackedFolders(index), undefined, "EOIE's hash of the headers does not match");
    git(root, "-c", "index.recordEndOfIndexEntries=true", "update-index", "--no-untracked-cache");
    assert.equal(readUntrackedFolders(index), undefined, "no UNTR");
    assert.equal(readUntrackedFolders(index, 32), undefined, "a sha256 index is not read");
    status(root);
    const scope = { git: { dir: join(root, ".git") }, statusStarted: Date.now() };
    assert.ok(checkedFolders(scope, 20), "a status of the latest judge: its folders");
    assert.equal(checkedFolders({ git: scope.git }, 20), undefined, "the latest judge ran no status");
    writeFileSync(`${index}.lock`, "");
    assert.equal(checkedFolders(scope, 20), undefined, "a lock left: the status may not have written");
    rmSync(`${index}.lock`);
  });

  it("says a folder is unchanged only from a later status and a ctime two seconds before the last listing", () => {
    const since = 1_800_000_000_500;
    const folders = new Map([
      ["old/", 1_800_000_000 - 2],
      ["recent/", 1_800_000_000 - 1],
    ]);
    assert.equal(unchangedSince(since, { started: since, folders }), undefined, "a status not after it");
    const known = unchangedSince(since, { started: since + 1, folders });
    assert.ok(known);
    assert.equal(known.at, since + 1, "the next listing's time is the status's start");
    assert.deepEqual(
      ["old/", "recent/", "absent/"].map((rel) => known.unchanged(rel)),
      [true, false, false],
    );
  });
});

describe("the ignored listing made again with unchanged folders from the untracked cache", () => {
  it("gives what a whole listing gives after each change, a change after the status at the latest next time", async () => {
    const root = repo();
    // Folders two seconds older than the first listing: the cache can vouch for them from the next one on.
    await sleep(2100);
    let listing = await listIgnored(root, "", root, "rules");
    const trusted = (): number => {
      const known = unchangedSince(listing.walk?.at ?? 0, checkedNow(root));
      return [...(listing.walk?.folders.keys() ?? [])].filter((rel) => known?.unchanged(rel)).length;
    };
    assert.ok(trusted() >= 70, "the untouched folders are taken from the cache");
    const rounds: [string, (root: string) => void][] = [
      ["nothing changed", () => {}],
      ["an ignored source beside tracked ones", (r) => write(r, "src/deep/impl.log")],
      ["a new wholly ignored folder deep down", (r) => write(r, "many/f3/cache/impl.js")],
      [
        "a folder's mtime set back after an ignored file was added",
        (r) => {
          write(r, "many/f7/hidden.log");
          utimesSync(join(r, "many/f7"), new Date(2000, 1, 1), new Date(2000, 1, 1));
        },
      ],
      ["a .gitignore edited in place", (r) => write(r, ".gitignore", "*.log\nbuild/\ncache/\n*.txt\n")],
      ["an ignored file removed", (r) => rmSync(join(r, "src/deep/old.log"))],
    ];
    for (const [what, change] of rounds) {
      change(root);
      const before = listing;
      listing = await relistIgnored(root, "", root, before, "rules", undefined, async () => checkedNow(root));
      const whole = await ignoredPaths(root, "");
      assert.deepEqual(sorted(listing.paths), sorted(whole), what);
      assert.deepEqual(
        newIgnoredSources(root, before.paths, listing.paths),
        newIgnoredSources(root, before.paths, whole),
        what,
      );
    }
    // A file made after the status checked its folder: this listing may miss it, the next one finds it.
    let late: CheckedFolders | undefined;
    listing = await relistIgnored(root, "", root, listing, "rules", undefined, async () => {
      late = checkedNow(root);
      write(root, "many/f9/late.log");
      return late;
    });
    assert.ok(late);
    listing = await relistIgnored(root, "", root, listing, "rules", undefined, async () => checkedNow(root));
    assert.ok(listing.paths.has("many/f9/late.log"));
    assert.deepEqual(sorted(listing.paths), sorted(await ignoredPaths(root, "")));
  });
});
