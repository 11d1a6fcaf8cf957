import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { applyDelta, PackObjects } from "../../src/git/pack-objects.js";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "buffer", stdio: "pipe", maxBuffer: 1 << 26 });

describe("objects read from pack files", () => {
  it("every object of a packed repository, deltified ones included, is what git cat-file gives", () => {
    const top = mkdtempSync(join(tmpdir(), "gantry-pack-"));
    git(top, "init", "-q", "-b", "main");
    const lines = Array.from(
      { length: 200 },
      (_, i) => `line ${i} of a file that changes a little each time`,
    );
    for (let round = 0; round < 8; round++) {
      lines[round * 7] = `changed in round ${round}`;
      writeFileSync(join(top, "file.txt"), `${lines.join("\n")}\n`);
      writeFileSync(join(top, `new-${round}.txt`), `${round}\n`);
      git(top, "add", "-A");
      git(top, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", `round ${round}`);
    }
    git(top, "gc", "-q", "--aggressive", "--prune=now");
    const index = readdirSync(join(top, ".git/objects/pack")).find((name) => name.endsWith(".idx")) ?? "";
    const verified = git(top, "verify-pack", "-v", join(top, ".git/objects/pack", index)).toString();
    // A deltified entry's line ends with its depth and its base's id.
    const deltified = verified
      .split("\n")
      .filter((line) => /^[0-9a-f]{40} \w+ +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/.test(line));
    assert.ok(deltified.length >= 5, `deltas in the pack:\n${verified}`);
    const listing = git(top, "cat-file", "--batch-all-objects", "--batch-check")
      .toString()
      .trim()
      .split("\n");
    const packs = new PackObjects(join(top, ".git/objects"));
    const packed = git(top, "count-objects", "-v").toString();
    assert.match(packed, /^count: 0$/m);
    for (const line of listing) {
      const [id = "", type = ""] = line.split(" ");
      const found = packs.read(id);
      assert.ok(found, `${id} read`);
      assert.equal(found.type, type);
      assert.deepEqual(found.body, git(top, "cat-file", type, id));
    }
    assert.ok(listing.length > 20);
    assert.equal(packs.read("0".repeat(40)), undefined);
  });

  it("applies copies and inserts, and refuses a delta for another source size or one that overruns", () => {
    const source = Buffer.from("hello, world");
    // source size 12, target size 11: copy 5 from 0, insert "!", copy 5 from 7.
    const delta = Buffer.from([12, 11, 0x90, 5, 1, 0x21, 0x91, 7, 5]);
    assert.equal(applyDelta(source, delta)?.toString(), "hello!world");
    assert.equal(applyDelta(Buffer.from("short"), delta), undefined);
    assert.equal(applyDelta(source, Buffer.from([12, 11, 0x91, 10, 5])), undefined);
  });
});
