import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { readHead } from "../../src/git/head-file.js";
import { ignoredBook } from "../../src/git/ignored-book.js";
import { LastIgnored } from "../../src/git/last-ignored.js";
import { activity, noteCommand, realTree } from "../../src/process/activity.js";
import { git, write } from "../support/fixture-repo.js";
import { committedRepo } from "../support/git-fixtures.js";

/** Who commits in these fixtures. */
const AS_T = ["-c", "user.name=t", "-c", "user.email=t@example.com"];

/** A committed repository with an ignored folder and ignored files, and its LastIgnored as openRepo wires it. */
function fixture(name: string): { top: string; last: LastIgnored } {
  const top = committedRepo({ ".gitignore": "*.log\nbuild/\ncache/\n", "src/a.js": "a\n" }, name);
  write(top, "build/out.js", "built\n");
  write(top, "src/old.log", "log\n");
  const dirs = { top, gitDir: join(top, ".git"), commonDir: join(top, ".git") };
  const reach = realTree(top);
  const last = new LastIgnored({
    top,
    head: () => readHead(top, dirs.gitDir),
    ranHere: () => activity(reach),
    listings: ignoredBook(top, "", dirs),
  });
  return { top, last };
}

const commitEmpty = (top: string, subject: string) =>
  git(top, ...AS_T, "commit", "-q", "--allow-empty", "-m", subject);

/**
 * The ignored listing a story's start takes: the one the story before it ended with, while nothing ran in
 * between and HEAD is where it was; else listed again from the disk.
 */
describe("the last ignored listing, reused while it holds", () => {
  it("is reused while nothing ran and HEAD stayed, and lists what is ignored", async () => {
    const { last } = fixture("last-ignored-reuse");
    assert.equal(last.paths, undefined, "nothing listed yet");
    const first = await last.now();
    assert.deepEqual([...first].sort(), ["build/", "src/old.log"]);
    assert.equal(await last.now(), first, "the same listing, not made again");
    assert.equal(last.paths, first);
  });

  it("is made again after a command started or ended in between, and not kept while one runs", async () => {
    const { top, last } = fixture("last-ignored-command");
    const before = await last.now();
    // A command that started and ended between two asks.
    const done = noteCommand(true);
    write(top, "src/made.log", "log\n");
    done();
    const first = await last.now();
    assert.notEqual(first, before);
    assert.ok(first.has("src/made.log"), "listed again from the disk");
    const ended = noteCommand(false);
    // A command that does not write files still counts: it may have anyway.
    write(top, "src/new.log", "log\n");
    const during = await last.now();
    assert.notEqual(during, first);
    assert.ok(during.has("src/new.log"), "listed again from the disk");
    assert.equal(last.paths, undefined, "a listing made while a command runs is not kept");
    assert.notEqual(await last.now(), during, "nor reused while it still runs");
    write(top, "src/later.log", "log\n");
    ended();
    const after = await last.now();
    assert.ok(after.has("src/later.log"), "what it wrote up to its end is listed");
    assert.equal(await last.now(), after, "kept once nothing runs");
  });

  it("is made again once HEAD moved, but for gantry's own commit from the listing's HEAD", async () => {
    const { top, last } = fixture("last-ignored-head");
    const first = await last.now();
    commitEmpty(top, "by someone else");
    const moved = await last.now();
    assert.notEqual(moved, first, "HEAD moved under it");
    assert.equal(await last.now(), moved);

    // gantry committed the judged tree: the working tree is the same, on top of the new commit.
    const from = git(top, "rev-parse", "HEAD");
    commitEmpty(top, "gantry(US-1): one");
    last.committed(from, git(top, "rev-parse", "HEAD"));
    assert.equal(await last.now(), moved, "carried to gantry's commit");

    // A commit from another HEAD than the listing's does not carry it.
    commitEmpty(top, "gantry(US-2): two");
    last.committed("f".repeat(40), git(top, "rev-parse", "HEAD"));
    assert.notEqual(await last.now(), moved, "listed again");
  });

  it("new ignored sources since a listing, after which the next start lists again; none found keeps it", async () => {
    const { top, last } = fixture("last-ignored-sources");
    const before = await last.now();
    assert.deepEqual(await last.newSources(before), []);
    const kept = last.paths;
    assert.ok(kept, "the listing made for the check is kept");
    assert.equal(await last.now(), kept, "and reused at the next start");

    write(top, "src/cache/impl.js", "export const x = 1;\n");
    write(top, "src/notes.log", "not a source\n");
    assert.deepEqual(await last.newSources(before), ["src/cache/impl.js"]);
    assert.equal(last.paths, undefined, "files about to be moved away: nothing kept");
    const next = await last.now();
    assert.ok(next.has("src/cache/") && next.has("src/notes.log"), [...next].join(" "));
  });
});
