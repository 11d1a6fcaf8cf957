import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { addInNode } from "../../src/git/add-in-node.js";
import { differencesFromIndex } from "../../src/git/judge-status.js";
import { scanPlainIndex } from "../../src/git/plain-index.js";

const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, args: string[], index?: string) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, ...(index ? { GIT_INDEX_FILE: index } : {}) },
  });
const write = (root: string, path: string, text = "x\n") => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
/** What the judge's status answers, against one index file: the untracked cache on, as the private git runs it. */
const statusOf = (root: string, index: string) =>
  git(
    root,
    ["-c", "core.untrackedCache=true", "status", "--porcelain=v1", "-z", "--untracked-files=normal"],
    index,
  );

/** A committed tree whose index looks like the private one after a judge: a whole cache-tree, an untracked cache. */
let template: string | undefined;

async function repo(): Promise<string> {
  template ??= await makeTemplate();
  const root = mkdtempSync(join(tmpdir(), "gantry-add-in-node-"));
  temps.push(root);
  execFileSync("cp", ["-a", `${template}/.`, root]);
  git(root, ["update-index", "-q", "--refresh"]);
  statusOf(root, join(root, ".git", "index"));
  return root;
}

async function makeTemplate(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), "gantry-add-in-node-"));
  temps.push(root);
  git(root, ["init", "-q", "-b", "main"]);
  git(root, ["config", "index.recordEndOfIndexEntries", "true"]);
  write(root, ".gitignore", "*.log\n");
  write(root, "src/a.js");
  write(root, "src/deep/b.js", "b\n");
  write(root, "src/deep/c.js", "c\n");
  write(root, "lib/c.txt", "c\n");
  for (let i = 0; i < 70; i++) write(root, `many/f${i}/x.txt`, `${i}\n`);
  write(root, "src/deep/old.log");
  git(root, ["add", "-A"]);
  git(root, ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base"]);
  // No entry racy against the index written next (git compares their mtimes to the nanosecond).
  await sleep(30);
  git(root, ["read-tree", "HEAD"]);
  return root;
}

/**
 * The listed paths added by git into one copy of the index and in node into another: undefined when node
 * refused (the copy untouched), else both copies' paths.
 */
async function addBoth(root: string, settled = true): Promise<{ byGit: string; byNode: string } | undefined> {
  // Settled: the changed folders' ctimes before the listing status starts (their cached lists are edited).
  if (settled) await sleep(40);
  const scope: { top: string; prefix: string; git: { env: Record<string, string> }; statusStarted?: number } =
    {
      top: root,
      prefix: "",
      git: { env: {} },
    };
  const paths = await differencesFromIndex(scope);
  assert.ok(paths.length > 0);
  const byGit = join(root, ".git", "index.git");
  const byNode = join(root, ".git", "index.node");
  copyFileSync(join(root, ".git", "index"), byGit);
  copyFileSync(join(root, ".git", "index"), byNode);
  const before = readFileSync(byNode);
  const added = addInNode({
    top: root,
    indexPath: byNode,
    objectsDir: join(root, ".git", "objects"),
    paths,
    read: {},
    out: {},
  });
  if (!added) {
    assert.ok(readFileSync(byNode).equals(before), "a refusal leaves the index as it was");
    return undefined;
  }
  assert.ok(readFileSync(byNode).equals(added.bytes), "the index returned is the one written");
  git(root, ["add", "-A", "--", ...paths.map((path) => `:(top,literal)${path}`)], byGit);
  return { byGit, byNode };
}

/** Node's index gives git's answers: entries, cache-tree, tree, status (then with new files too), fsck. */
function assertSame(root: string, both: { byGit: string; byNode: string }): void {
  const { byGit, byNode } = both;
  const lsFiles = (index: string) => git(root, ["ls-files", "-s", "--debug"], index);
  assert.equal(lsFiles(byNode), lsFiles(byGit));
  const gitIndex = scanPlainIndex(readFileSync(byGit));
  const nodeIndex = scanPlainIndex(readFileSync(byNode));
  assert.ok(gitIndex && nodeIndex);
  assert.equal(
    extension(nodeIndex.bytes, "TREE")?.toString("hex"),
    extension(gitIndex.bytes, "TREE")?.toString("hex"),
  );
  assert.equal(statusOf(root, byNode), statusOf(root, byGit));
  assert.equal(statusOf(root, byNode), statusOf(root, byGit), "and again from the cache each wrote back");
  write(root, "src/later.js");
  write(root, "src/deep/later.js");
  write(root, "fresh/later.js");
  assert.equal(statusOf(root, byNode), statusOf(root, byGit));
  assert.equal(git(root, ["write-tree"], byNode), git(root, ["write-tree"], byGit));
  git(root, ["fsck", "--strict", "--no-dangling"]);
}

function extension(bytes: Buffer, signature: string): Buffer | undefined {
  const at = bytes.indexOf(signature);
  return at < 0 ? undefined : bytes.subarray(at + 8, at + 8 + bytes.readUInt32BE(at + 4));
}

describe("the judge's add in node", () => {
  const shapes: [string, (root: string) => void][] = [
    ["an edit", (root) => write(root, "src/a.js", "edited\n")],
    ["a new file in a tracked folder", (root) => write(root, "src/new.js", "new\n")],
    ["a new file deep down", (root) => write(root, "many/f3/y.txt", "y\n")],
    ["a deletion", (root) => unlinkSync(join(root, "src/deep/b.js"))],
    [
      "a folder emptied",
      (root) => {
        unlinkSync(join(root, "src/deep/b.js"));
        unlinkSync(join(root, "src/deep/c.js"));
      },
    ],
    ["chmod +x", (root) => chmodSync(join(root, "src/a.js"), 0o755)],
    ["a new symlink", (root) => symlinkSync("a.js", join(root, "src/link"))],
    [
      "a file made a symlink",
      (root) => {
        unlinkSync(join(root, "lib/c.txt"));
        symlinkSync("../src/a.js", join(root, "lib/c.txt"));
      },
    ],
    ["an empty file", (root) => write(root, "src/empty.js", "")],
    [
      "many changes at once",
      (root) => {
        write(root, "src/a.js", "again\n");
        write(root, "src/deep/new.js");
        unlinkSync(join(root, "lib/c.txt"));
        for (let i = 0; i < 20; i++) write(root, `many/f${i}/x.txt`, "changed\n");
      },
    ],
  ];
  for (const [name, change] of shapes)
    it(`gives git's index for ${name}`, async () => {
      const root = await repo();
      change(root);
      const both = await addBoth(root);
      assert.ok(both, "node adds it");
      assertSame(root, both);
    });

  const refused: [string, (root: string) => void][] = [
    ["a new folder (listed whole)", (root) => write(root, "fresh/x.js")],
    [
      "a file made a folder",
      (root) => {
        unlinkSync(join(root, "lib/c.txt"));
        write(root, "lib/c.txt/inner.js");
      },
    ],
    [
      "a folder made a file",
      (root) => {
        rmSync(join(root, "src/deep"), { recursive: true });
        write(root, "src/deep", "file\n");
      },
    ],
    [
      "a .gitattributes beside a change",
      (root) => {
        write(root, "src/.gitattributes", "*.js text eol=crlf\n");
        write(root, "src/a.js", "edited\n");
      },
    ],
    [
      "a .gitattributes above a change, already tracked",
      (root) => {
        write(root, ".gitattributes", "*.txt -text\n");
        git(root, ["add", ".gitattributes"]);
        write(root, "many/f1/x.txt", "edited\n");
      },
    ],
    ["a .gitignore changed", (root) => write(root, ".gitignore", "*.log\n*.tmp\n")],
    [
      "attributes the private git reads from its own info/",
      (root) => {
        write(root, ".git/info/attributes", "*.js text eol=crlf\n");
        write(root, "src/a.js", "edited\n");
      },
    ],
    ["a name git may refuse", (root) => write(root, "src/odd name.js")],
    ["a nested repository", (root) => git(join(root, "src"), ["init", "-q", "inner"])],
  ];
  for (const [name, change] of refused)
    it(`leaves ${name} to git`, async () => {
      const root = await repo();
      change(root);
      assert.equal(await addBoth(root), undefined);
    });

  it("leaves it to git when an entry it does not touch is racy and its file changed", async () => {
    const root = await repo();
    write(root, "src/a.js", "edited\n");
    const index = join(root, ".git", "index");
    const add = () =>
      addInNode({
        top: root,
        indexPath: index,
        objectsDir: join(root, ".git", "objects"),
        paths: ["src/a.js"],
        read: {},
        out: {},
      });
    // lib/c.txt rewritten at the same size with the stat data git recorded put back, in the second the index
    // file was last written: only its content says it changed.
    const copy = `${index}.copy`;
    copyFileSync(index, copy);
    const seconds = Math.floor(Date.now() / 1000) + 5;
    const file = join(root, "lib", "c.txt");
    const ino = lstatSync(file).ino;
    writeFileSync(file, "d\n");
    utimesSync(file, seconds, seconds);
    git(root, ["update-index", "lib/c.txt"]);
    writeFileSync(file, "e\n");
    utimesSync(file, seconds, seconds);
    utimesSync(index, seconds, seconds);
    assert.equal(lstatSync(file).ino, ino);
    assert.equal(add(), undefined, "git's write would smudge it");
    writeFileSync(file, "d\n");
    utimesSync(file, seconds, seconds);
    assert.ok(add(), "the same racy entry whose file holds its blob: left as it is, as git leaves it");
    copyFileSync(copy, index);
  });
});
