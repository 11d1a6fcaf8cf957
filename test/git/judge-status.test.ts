import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { GitRepo } from "../../src/git/git-repo.js";
import { LIST_FIRST_INDEX_BYTES } from "../../src/git/judge.js";
import { addPathspecs } from "../../src/git/judge-status.js";
import { openRepo } from "../../src/git/repo.js";
import { execCommand } from "../../src/process/executor.js";
import { commitAll, git, write } from "../support/fixture-repo.js";

/**
 * On a large tree the judge adds only what git's status lists as changed since the last judge
 * (judge-status.ts). Whatever a session did, the tree judged must be the tree a full `add -A` of the
 * working tree makes, `.gantry/` left out.
 */
// A git on PATH that notes each call (with the private GIT_DIR, so the judge's are told apart), set
// before anything starts the helpers that run git.
const shimDir = mkdtempSync(join(tmpdir(), "gantry-judge-status-shim-"));
const log = join(shimDir, "calls.log");
const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
writeFileSync(
  join(shimDir, "git"),
  `#!/bin/sh\necho "PWD=$PWD GIT_DIR=$GIT_DIR $*" >> '${log}'\nexec '${realGit}' "$@"\n`,
);
chmodSync(join(shimDir, "git"), 0o755);
process.env.PATH = `${shimDir}:${process.env.PATH}`;
after(() => rmSync(shimDir, { recursive: true, force: true }));

describe("the judge on a large tree: status, then an add of what it listed", () => {
  const roots: string[] = [];
  after(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  /** Folder names as long as paths go (3,800 bytes) fill the private index past LIST_FIRST_INDEX_BYTES with 600 small files. */
  const DEEP = `src/${Array.from({ length: 15 }, (_, i) => String.fromCharCode(97 + i).repeat(250)).join("/")}`;

  async function fixture(): Promise<{ root: string; repo: GitRepo }> {
    const root = mkdtempSync(join(tmpdir(), "gantry-judge-status-"));
    roots.push(root);
    for (let i = 0; i < 600; i++) write(root, `${DEEP}/f${i}.ts`, "x\n");
    write(root, "src/a.js", "export const a = 1;\n");
    write(root, "src/gone/old.js", "old\n");
    write(root, "src/kind", "a file that becomes a folder\n");
    write(root, ".gitignore", "out/\n*.log\n");
    write(root, ".gantry/config.json", "{}\n");
    commitAll(root);
    const repo = await openRepo(root);
    after(() => repo.close());
    return { root, repo };
  }

  /** The tree a full `add -A` makes from `from`'s entries, .gantry/ left out: what the judge must agree with. */
  function fullAdd(root: string, from = "HEAD"): string {
    const index = join(root, ".git", "reference-index");
    rmSync(index, { force: true });
    const env = { ...process.env, GIT_INDEX_FILE: index, GIT_CONFIG_NOSYSTEM: "1" };
    const run = (...args: string[]) => execFileSync("git", args, { cwd: root, env, encoding: "utf8" }).trim();
    // From the entries the judge's index holds (HEAD's, then the last tree judged), as the full judge does:
    // a file tracked there stays when a rule comes to ignore it.
    run("read-tree", from);
    run("rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", ".gantry");
    run("add", "-A", "--", ":(top)", ":(exclude,top).gantry");
    const tree = run("write-tree");
    rmSync(index, { force: true });
    return tree;
  }

  /** Runs a command that may write (so the next judge builds the tree) and judges. */
  const session = async (root: string, repo: GitRepo, command: string) => {
    const ran = await execCommand({ command, cwd: root, timeoutMs: 10_000 });
    assert.equal(ran.exitCode, 0, ran.output);
    return (await repo.judge()).tree;
  };

  it("agrees with a full add after edits, new folders, removals, a type change, a symlink, a mode change and ignore rules", async () => {
    const { root, repo } = await fixture();
    const first = await repo.judge();
    assert.equal(first.tree, fullAdd(root));
    assert.ok(statSync(join(root, ".git", "index")).size > LIST_FIRST_INDEX_BYTES, "a tree past the size");
    const cases: [string, string][] = [
      ["an edit of a tracked file", "echo 'export const a = 2;' > src/a.js"],
      ["a new file three folders down", "mkdir -p src/n1/n2/n3 && echo n > src/n1/n2/n3/new.ts"],
      ["a file removed, its folder with it", "rm -r src/gone"],
      ["a file that becomes a folder", "rm src/kind && mkdir src/kind && echo k > src/kind/inner.ts"],
      ["a symlink inside the tree", "ln -s a.js src/link.js"],
      ["a mode change", "chmod +x src/a.js"],
      ["ignored files and folders only", "mkdir -p out && echo o > out/x.ts && echo l > src/run.log"],
      ["an ignore rule dropped: the ignored file now counts", "printf 'out/\\n' > .gitignore"],
      [
        "an ignore rule added: a tracked file stays, a new one is left out",
        "printf 'out/\\n*.ts\\n' > .gitignore && echo t > src/t.ts",
      ],
      ["gantry's own files", "echo '{\"x\":1}' > .gantry/config.json && echo p > .gantry/new.json"],
      ["a file whose name is one letter", "echo z > z"],
      [
        "a folder named .gantry below the top, which is the project's",
        "mkdir -p src/.gantry && echo g > src/.gantry/g.js",
      ],
      ["gantry's folder turned into a file", "rm -r .gantry && echo x > .gantry"],
      [
        "a deep file rewritten with the same size and its mtime put back",
        `f='${DEEP}/f7.ts'; t=$(stat -c %y "$f"); echo y > "$f"; touch -d "$t" "$f"`,
      ],
      ["nothing at all", "true"],
    ];
    const same = new Set([
      "ignored files and folders only",
      "gantry's own files",
      "gantry's folder turned into a file",
      "nothing at all",
    ]);
    let previous = first.tree;
    for (const [what, command] of cases) {
      const judged = await session(root, repo, command);
      const expected = fullAdd(root, previous);
      assert.equal(
        judged,
        expected,
        `${what}: ${judged === expected ? "" : git(root, "diff-tree", "-r", "--name-status", expected, judged)}`,
      );
      if (same.has(what)) assert.equal(judged, previous, what);
      else assert.notEqual(judged, previous, what);
      previous = judged;
    }
    assert.equal(git(root, "show", `${previous}:${DEEP}/f7.ts`), "y");
    // The judges after the first added only what status listed: no `add -A` of the whole tree.
    const calls = readFileSync(log, "utf8").split("\n");
    // This repository's judges only: other tests in the same process may run git through the shim too.
    const adds = calls.filter(
      (line) => / add -A /.test(line) && line.startsWith(`PWD=${root} `) && line.includes("GIT_DIR=/"),
    );
    assert.equal(
      adds.filter((line) => line.includes("-- :(top) ")).length,
      1,
      "one full add: the first judge's",
    );
    assert.ok(
      adds.some((line) => line.includes(":(top,literal)src/n1/")),
      "a new folder added by its path, by git (node leaves a folder listed whole to git)",
    );
    // Edits, a removal, a symlink and a mode change of plain names were added in node (add-in-node.ts).
    assert.ok(!adds.some((line) => line.includes(":(top,literal)src/a.js")), "src/a.js added in node");
    assert.ok(!adds.some((line) => line.includes(":(top,literal)src/link.js")), "the symlink added in node");
  });
});

/** When the judge adds the listed paths and when it adds the whole tree instead. */
describe("the judge's pathspecs from git's status", () => {
  it("names each listed path literally from the top", () => {
    assert.deepEqual(addPathspecs(["src/a.js", "new dir/", ":odd"], ".gantry/"), [
      ":(top,literal)src/a.js",
      ":(top,literal)new dir/",
      ":(top,literal):odd",
    ]);
  });

  it("adds the whole tree past 2,000 paths or 128 KB of them", () => {
    const many = (n: number, length = 8) => Array.from({ length: n }, (_, i) => `${i}`.padStart(length, "f"));
    assert.equal(addPathspecs(many(2000), ".gantry/")?.length, 2000);
    assert.equal(addPathspecs(many(2001), ".gantry/"), undefined);
    // 1,024 paths of 112 bytes, 16 more counted for each: exactly 128 KB, still listed; a byte more each is past it.
    assert.equal(addPathspecs(many(1024, 112), ".gantry/")?.length, 1024);
    assert.equal(addPathspecs(many(1024, 113), ".gantry/"), undefined);
  });

  it("adds the whole tree when a folder listed whole holds gantry's folder (a project below the top)", () => {
    assert.equal(addPathspecs(["app/"], "app/.gantry/"), undefined);
    assert.equal(addPathspecs(["web/", "app/x.js"], "app/.gantry/")?.length, 2);
    assert.equal(addPathspecs(["app"], "app/.gantry/")?.length, 1);
    assert.equal(addPathspecs(["/"], "app/.gantry/")?.length, 1);
  });
});
