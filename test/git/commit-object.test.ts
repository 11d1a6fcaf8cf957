import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { stampNow, writeCommit } from "../../src/git/commit-object.js";
import { GitObjects } from "../../src/git/git-objects.js";

const git = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: "pipe", env: { ...process.env, ...env } }).trim();

describe("the commit object written in node", () => {
  it("is the object git commit-tree writes for the same tree, parent, people, time and subject", () => {
    const top = mkdtempSync(join(tmpdir(), "gantry-commit-object-"));
    git(top, ["init", "-q", "-b", "main"]);
    const tree = git(top, ["write-tree"]);
    const parent = git(top, ["commit-tree", tree, "-m", "base"], {
      GIT_AUTHOR_NAME: "a",
      GIT_AUTHOR_EMAIL: "a@e",
      GIT_COMMITTER_NAME: "a",
      GIT_COMMITTER_EMAIL: "a@e",
    });
    const objects = new GitObjects(join(top, ".git/objects"));
    for (const [parentId, offsetMinutes] of [
      [parent, 0],
      [parent, 330],
      ["", -210],
    ] as const) {
      const when = new Date(1764576000000 + offsetMinutes * 1000);
      const author = { ...stampNow("Ann Author", "ann@example.com", when), offsetMinutes };
      const committer = { ...stampNow("Cy Committer", "cy@example.com", when), offsetMinutes };
      const zone = `${offsetMinutes < 0 ? "-" : "+"}${String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, "0")}${String(Math.abs(offsetMinutes) % 60).padStart(2, "0")}`;
      const date = `${author.seconds} ${zone}`;
      const subject = "gantry(US-1): a story's title, with 'quotes' and ünïcode";
      const byGit = git(top, ["commit-tree", tree, ...(parentId ? ["-p", parentId] : []), "-m", subject], {
        GIT_AUTHOR_NAME: "Ann Author",
        GIT_AUTHOR_EMAIL: "ann@example.com",
        GIT_COMMITTER_NAME: "Cy Committer",
        GIT_COMMITTER_EMAIL: "cy@example.com",
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_DATE: date,
      });
      assert.equal(writeCommit(objects, tree, parentId, author, committer, subject), byGit);
    }
    git(top, ["fsck", "--strict"]);
  });

  it("stamps now in the local zone as git does (git var's own time and zone)", () => {
    // The compiled test imports the compiled module in a plain node; through tsx, the source with tsx.
    const compiled = import.meta.url.endsWith(".js");
    const url = new URL(`../../src/git/commit-object.${compiled ? "js" : "ts"}`, import.meta.url).href;
    for (const TZ of ["Asia/Kolkata", "America/St_Johns"]) {
      const script = `import(${JSON.stringify(url)}).then((m) => {
        const body = m.commitBody("t", "", m.stampNow("n", "e"), m.stampNow("n", "e"), "s").toString();
        process.stdout.write(/^committer n <e> (\\d+) (\\S+)$/m.exec(body).slice(1).join(" "));
      })`;
      const ours = execFileSync(process.execPath, [...(compiled ? [] : ["--import", "tsx"]), "-e", script], {
        encoding: "utf8",
        env: { ...process.env, TZ },
      }).split(" ");
      const theirs = git(process.cwd(), ["var", "GIT_COMMITTER_IDENT"], { TZ }).split(" ").slice(-2);
      assert.equal(ours[1], theirs[1], `the zone in ${TZ}`);
      assert.ok(Math.abs(Number(ours[0]) - Number(theirs[0])) <= 5, `the time in ${TZ}`);
    }
  });
});
