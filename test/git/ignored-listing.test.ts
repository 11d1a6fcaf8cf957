import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { changedFolders, walkFolders } from "../../src/git/folder-walk.js";
import { GitObjects } from "../../src/git/git-objects.js";
import { ignoredPaths, listIgnored, newIgnoredSources, relistIgnored } from "../../src/git/ignored-files.js";
import { answerFromIndex, type IndexedPaths, indexedIn } from "../../src/git/ignored-from-index.js";

const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });
const write = (root: string, path: string, text = "x\n") => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};

/** Tracked folders two deep, a wholly ignored folder, ignored files beside tracked ones, an untracked folder. */
function repo(): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-ignored-"));
  temps.push(root);
  git(root, "init", "-q", "-b", "main");
  write(root, ".gitignore", "*.log\nbuild/\ncache/\n");
  write(root, "src/a.js");
  write(root, "src/deep/b.js");
  write(root, "src/deep/old.log");
  write(root, "lib/c.js");
  write(root, "build/out.js");
  write(root, ".gantry/config.json", "{}\n");
  git(root, "add", "-A");
  git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
  write(root, "notes/todo.txt");
  return root;
}

const sorted = (paths: Set<string>) => [...paths].sort();

/** The paths a judge's private index holds: the tracked files and every untracked one no rule ignores. */
const judgedPaths = (root: string) =>
  new Set(
    git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0").filter(Boolean),
  );

/** Every path given and every folder that holds one: more than answerFromIndex needs, as the whole index was. */
function indexedPaths(paths: Iterable<string>): IndexedPaths {
  const files = new Set<string>();
  const folders = new Set<string>();
  for (const path of paths) {
    files.add(path);
    for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) folders.add(path.slice(0, i + 1));
  }
  return { files, folders };
}

/** The tree a judge writes now: HEAD's entries, then `add -A` of the working tree but .gantry/, in an index of its own. */
function judgedTree(root: string): string {
  const env = { ...process.env, GIT_INDEX_FILE: join(root, ".git", "judged-index") };
  const run = (...args: string[]) => execFileSync("git", args, { cwd: root, env, encoding: "utf8" }).trim();
  run("read-tree", "HEAD");
  run("add", "-A", "--", ":(exclude,top).gantry");
  return run("write-tree");
}

describe("the ignored-files listing made again only where folders changed", () => {
  const changes: [string, (root: string) => void][] = [
    ["nothing changed", () => {}],
    ["an ignored source file beside tracked ones", (root) => write(root, "src/deep/impl.log")],
    ["a new wholly ignored folder", (root) => write(root, "src/cache/impl.js")],
    ["an ignored file three folders down in new folders", (root) => write(root, "lib/x/y/z/impl.log")],
    [
      "an ignored file moved in from elsewhere",
      (root) => renameSync(join(root, "src/deep/old.log"), join(root, "lib/old.log")),
    ],
    [
      "a file inside the wholly ignored folder (not listed, as before)",
      (root) => write(root, "build/more.js"),
    ],
    ["a file at the top level", (root) => write(root, "top.log")],
    [
      "a .gitignore rule that ignores an untracked file",
      (root) => write(root, "notes/.gitignore", "todo.txt\n"),
    ],
    ["a .gitignore edited in place", (root) => write(root, ".gitignore", "*.log\nbuild/\ncache/\n*.txt\n")],
    [
      "a folder's mtime set back after a file was added (its ctime still moved)",
      (root) => {
        write(root, "src/deep/hidden.log");
        utimesSync(join(root, "src/deep"), new Date(2000, 1, 1), new Date(2000, 1, 1));
      },
    ],
    ["an ignored folder removed", (root) => rmSync(join(root, "build"), { recursive: true })],
  ];
  for (const [what, change] of changes)
    for (const judged of [false, true])
      it(`gives what a whole listing gives: ${what}${judged ? " (the judged index answering)" : ""}`, async () => {
        const root = repo();
        const before = await listIgnored(root, "", root, "rules");
        assert.deepEqual(sorted(before.paths), sorted(await ignoredPaths(root, "")));
        assert.ok(before.walk, "the tree was walked");
        change(root);
        // What the judge's `add -A` leaves in the private index: the tracked files and every one no rule ignores.
        const objects = new GitObjects(join(root, ".git", "objects"));
        const indexed = judged
          ? (folders: readonly string[]) => indexedIn(objects, judgedTree(root), folders)
          : undefined;
        const again = await relistIgnored(root, "", root, before, "rules", indexed);
        const whole = await ignoredPaths(root, "");
        assert.deepEqual(sorted(again.paths), sorted(whole));
        assert.deepEqual(
          newIgnoredSources(root, before.paths, again.paths),
          newIgnoredSources(root, before.paths, whole),
        );
        // And from that listing on, once more after another new ignored file.
        write(root, "lib/later.log");
        const third = await relistIgnored(root, "", root, again, "rules", indexed);
        assert.deepEqual(sorted(third.paths), sorted(await ignoredPaths(root, "")));
      });

  it("a changed folder with nothing new outside the judged index is answered without git; anything else asks it", async () => {
    const root = repo();
    const before = await listIgnored(root, "", root, "rules");
    const walkNow = () => walkFolders(root, new Set([".gantry/", "build/"]), before.walk);
    write(root, "src/deep/new.js");
    write(root, "lib/fresh/d.js");
    rmSync(join(root, "src/deep/old.log"));
    let walk = walkNow();
    assert.ok(walk && before.walk);
    let changed = changedFolders(before.walk, walk) ?? [];
    assert.deepEqual(changed, ["lib/", "src/deep/"]);
    const answer = answerFromIndex(
      root,
      changed,
      before.walk,
      walk,
      before.paths,
      indexedPaths(judgedPaths(root)),
    );
    assert.deepEqual(answer, { ask: [], kept: [] }, "no git, and the removed ignored file is gone");
    // The same from the judged tree's objects, read only for the folders whose key changed.
    const objects = new GitObjects(join(root, ".git", "objects"));
    const moved = [...walk.folders].filter(([rel, f]) => before.walk?.folders.get(rel)?.key !== f.key);
    const fromTree = indexedIn(
      objects,
      judgedTree(root),
      moved.map(([rel]) => rel),
    );
    assert.ok(fromTree);
    assert.deepEqual(
      [[...fromTree.files].sort(), [...fromTree.folders].sort()],
      [["lib/c.js", "lib/fresh/d.js", "src/deep/b.js", "src/deep/new.js"], ["lib/fresh/"]],
    );
    assert.deepEqual(answerFromIndex(root, changed, before.walk, walk, before.paths, fromTree), answer);
    assert.equal(
      indexedIn(objects, "0".repeat(40), ["lib/"]),
      undefined,
      "a tree it cannot read: git is asked",
    );
    assert.deepEqual(
      indexedIn(objects, judgedTree(root), ["nowhere/"])?.files,
      new Set(),
      "a folder not in the tree",
    );
    write(root, "lib/fresh/e.log");
    write(root, "src/deep/kept.log");
    walk = walkNow();
    assert.ok(walk);
    changed = changedFolders(before.walk, walk) ?? [];
    const known = indexedPaths([...judgedPaths(root)].filter((path) => !path.endsWith(".log")));
    assert.deepEqual(answerFromIndex(root, changed, before.walk, walk, before.paths, known).ask, [
      "lib/",
      "src/deep/",
    ]);
  });

  it("a new ignored source is found where git's listing finds it", async () => {
    const root = repo();
    const before = await listIgnored(root, "", root, "rules");
    write(root, "src/deep/cache/impl.js");
    const again = await relistIgnored(root, "", root, before, "rules");
    assert.deepEqual(newIgnoredSources(root, before.paths, again.paths), ["src/deep/cache/impl.js"]);
  });

  it("lists nothing again when no folder changed, and only the changed folders otherwise", () => {
    const root = repo();
    const skip = new Set([".gantry/", "build/"]);
    const first = walkFolders(root, skip);
    assert.ok(first);
    assert.ok(
      !first.folders.has("build/") && !first.folders.has(".gantry/") && first.folders.has("src/deep/"),
    );
    const same = walkFolders(root, skip, first);
    assert.ok(same);
    assert.deepEqual(changedFolders(first, same), []);
    write(root, "src/deep/x/new.log");
    write(root, "lib/new.log");
    const changed = walkFolders(root, skip, first);
    assert.ok(changed);
    assert.deepEqual(changedFolders(first, changed), ["lib/", "src/deep/"]);
    write(root, "src/.gitignore", "*.tmp\n");
    const rules = walkFolders(root, skip, changed);
    assert.ok(rules);
    assert.equal(changedFolders(changed, rules), undefined, "a new .gitignore: everything lists again");
  });

  it("a change to the rules outside the tree lists the whole tree again", async () => {
    const root = repo();
    const before = await listIgnored(root, "", root, "rules v1");
    write(root, "notes/more.txt");
    writeFileSync(join(root, ".git/info/exclude"), "*.txt\n");
    const again = await relistIgnored(root, "", root, before, "rules v2");
    assert.deepEqual(sorted(again.paths), sorted(await ignoredPaths(root, "")));
    assert.ok(again.paths.has("notes/todo.txt"));
  });

  it("a folder whose name is not UTF-8 is not walked: the whole tree is listed, and what is new in it is found", async () => {
    const root = repo();
    const odd = Buffer.concat([Buffer.from(`${root}/lib/`), Buffer.from([0x6f, 0xff, 0x64])]);
    mkdirSync(odd);
    writeFileSync(Buffer.concat([odd, Buffer.from("/kept.js")]), "1\n");
    git(root, "add", "-A");
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "odd");
    const before = await listIgnored(root, "", root, "rules");
    assert.equal(before.walk, undefined);
    writeFileSync(Buffer.concat([odd, Buffer.from("/impl.log")]), "1\n");
    const again = await relistIgnored(root, "", root, before, "rules");
    assert.deepEqual(sorted(again.paths), sorted(await ignoredPaths(root, "")));
    assert.equal([...again.paths].filter((p) => p.endsWith("/impl.log")).length, 1);
  });
});
