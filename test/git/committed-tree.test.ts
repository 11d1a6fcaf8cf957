import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { buildCommittedTree } from "../../src/git/committed-tree.js";
import { openRepo } from "../../src/git/repo.js";

function git(cwd: string, args: string[], env: Record<string, string> = {}): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    stdio: "pipe",
    env: { ...process.env, ...env },
  }).trim();
}

/** A repository with gantry under `prefix`, two features, committed; the working tree then judged as git would. */
function project(prefix = ""): { top: string; base: string } {
  const top = mkdtempSync(join(tmpdir(), "gantry-ctree-"));
  const at = join(top, prefix);
  for (const feature of ["a", "b"]) {
    mkdirSync(join(at, ".gantry/features", feature), { recursive: true });
    writeFileSync(join(at, ".gantry/features", feature, "prd.json"), `{"f":"${feature}"}\n`);
  }
  writeFileSync(join(at, ".gantry/config.json"), "{}\n");
  mkdirSync(join(at, "src"), { recursive: true });
  writeFileSync(join(at, "src/x.ts"), "1\n");
  writeFileSync(join(top, "top.txt"), "t\n");
  git(top, ["init", "-q", "-b", "main"]);
  git(top, ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "empty"]);
  git(top, ["add", "-A"]);
  git(top, ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "base"]);
  return { top, base: git(top, ["rev-parse", "HEAD"]) };
}

/** What the commit's script builds with git alone: the judged tree, HEAD's .gantry/, prd.json added. */
function treeByGit(top: string, prefix: string, judged: string, head: string): string {
  const env = { GIT_INDEX_FILE: join(mkdtempSync(join(tmpdir(), "gantry-ctree-idx-")), "index") };
  const gantry = `${prefix}.gantry`;
  git(top, ["read-tree", judged], env);
  git(top, ["read-tree", `--prefix=${gantry}/`, `${head}:${gantry}`], env);
  git(top, ["add", "-A", "--", `:(top,glob)${gantry}/features/*/prd.json`], env);
  return git(top, ["write-tree"], env);
}

/** The working tree's tree without .gantry/, as the judge builds it. */
function judge(top: string, prefix: string): string {
  const env = { GIT_INDEX_FILE: join(mkdtempSync(join(tmpdir(), "gantry-ctree-idx-")), "index") };
  git(top, ["add", "-A", "--", ":(top)", `:(exclude,top)${prefix}.gantry`], env);
  return git(top, ["write-tree"], env);
}

function build(top: string, prefix: string, judgedTree: string, head: string): string | undefined {
  return buildCommittedTree({ objects: join(top, ".git/objects"), top, prefix, judgedTree, head })?.tree;
}

describe("the commit's tree built in node", () => {
  for (const prefix of ["", "packages/app/"]) {
    it(`is the tree git builds, prd.json changed and not, an executable bit, prefix ${JSON.stringify(prefix)}`, () => {
      const { top, base } = project(prefix);
      const at = join(top, prefix);
      writeFileSync(join(at, "src/new.ts"), "2\n");
      const unchanged = judge(top, prefix);
      assert.equal(build(top, prefix, unchanged, base), treeByGit(top, prefix, unchanged, base));
      writeFileSync(join(at, ".gantry/features/b/prd.json"), '{"f":"b","passes":true}\n');
      chmodSync(join(at, ".gantry/features/a/prd.json"), 0o755);
      writeFileSync(join(at, ".gantry/config.json"), '{"edited during the run":"not committed"}\n');
      const judged = judge(top, prefix);
      const built = build(top, prefix, judged, base);
      assert.equal(built, treeByGit(top, prefix, judged, base));
      assert.match(git(top, ["cat-file", "-p", `${built}:${prefix}.gantry/features/b/prd.json`]), /passes/);
      assert.equal(git(top, ["cat-file", "-p", `${built}:${prefix}.gantry/config.json`]), "{}");
      git(top, ["fsck", "--strict", "--no-dangling"]);
    });
  }

  it("leaves to git what it cannot be sure of: a new or removed prd.json, attributes, a link; reads packs", () => {
    const { top, base } = project();
    const judged = judge(top, "");
    assert.ok(build(top, "", judged, base), "the plain case is built in node");
    mkdirSync(join(top, ".gantry/features/c"));
    writeFileSync(join(top, ".gantry/features/c/prd.json"), "{}\n");
    assert.equal(build(top, "", judged, base), undefined, "a new prd.json: an ignore rule may keep it out");
    rmSync(join(top, ".gantry/features/c"), { recursive: true });
    rmSync(join(top, ".gantry/features/a/prd.json"));
    assert.equal(build(top, "", judged, base), undefined, "a removed prd.json");
    writeFileSync(join(top, ".gantry/features/a/prd.json"), '{"f":"a"}\n');
    writeFileSync(join(top, ".gitattributes"), "*.json eol=crlf\n");
    assert.equal(build(top, "", judged, base), undefined, "attributes could convert the bytes");
    rmSync(join(top, ".gitattributes"));
    writeFileSync(join(top, ".gantry/.gitattributes"), "*.json ident\n");
    git(top, ["add", "-A"]);
    git(top, ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "attributes"]);
    const withAttributes = git(top, ["rev-parse", "HEAD"]);
    rmSync(join(top, ".gantry/.gitattributes"));
    assert.equal(build(top, "", judged, withAttributes), undefined, "HEAD's attributes, gone from disk");
    rmSync(join(top, ".gantry/features/b"), { recursive: true });
    mkdirSync(join(top, "elsewhere"));
    writeFileSync(join(top, "elsewhere/prd.json"), '{"f":"b"}\n');
    symlinkSync(join(top, "elsewhere"), join(top, ".gantry/features/b"));
    assert.equal(build(top, "", judged, base), undefined, "a feature folder that is a link");
    rmSync(join(top, ".gantry/features/b"));
    mkdirSync(join(top, ".gantry/features/b"));
    writeFileSync(join(top, ".gantry/features/b/prd.json"), '{"f":"b"}\n');
    assert.ok(build(top, "", judged, base));
    // Packed (and deltified) objects are read from the pack: the same tree.
    for (let i = 0; i < 6; i++) {
      writeFileSync(join(top, ".gantry/features/a/prd.json"), `{"f":"a","round":${i}}\n`);
      git(top, ["add", "-A"]);
      git(top, ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", `round ${i}`]);
    }
    git(top, ["gc", "-q", "--aggressive", "--prune=now"]);
    assert.match(git(top, ["count-objects", "-v"]), /^count: 0$/m, "every object packed");
    const head = git(top, ["rev-parse", "HEAD"]);
    writeFileSync(join(top, ".gantry/features/b/prd.json"), '{"f":"b","later":true}\n');
    const packed = judge(top, "");
    assert.equal(build(top, "", packed, head), treeByGit(top, "", packed, head));
  });

  it("through commitJudged: HEAD's tree is the judged tree with .gantry/, the user's index reset, no hook run", async () => {
    const { top, base } = project();
    writeFileSync(join(top, ".git/hooks/post-commit"), "#!/bin/sh\ntouch hook-ran\n", { mode: 0o755 });
    const repo = await openRepo(top);
    writeFileSync(join(top, "src/y.ts"), "3\n");
    writeFileSync(join(top, ".gantry/features/a/prd.json"), '{"f":"a","passes":true}\n');
    const judged = await repo.judge();
    const commit = await repo.commitJudged(judged, "gantry(US-1): y");
    assert.equal(git(top, ["rev-parse", "HEAD"]), commit);
    assert.equal(git(top, ["rev-parse", "HEAD^"]), base);
    assert.equal(git(top, ["rev-parse", "HEAD^{tree}"]), treeByGit(top, "", judged.tree, base));
    assert.equal(git(top, ["status", "--porcelain"]), "", "the user's index is the commit");
    assert.equal(existsSync(join(top, "hook-ran")), false, "hooks off");
    git(top, ["fsck", "--strict", "--no-dangling"]);
    repo.close();
  });
});
