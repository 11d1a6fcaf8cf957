// `gantry init`'s baseline lint / typecheck run through the built CLI: in the judging sandbox when it works.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { judgingSupport } from "../../src/process/judging-support.js";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { committedRepo } from "../support/git-fixtures.js";
import { gantry } from "./harness.js";

const found = await sandboxSupport();
const judging = found.works && found.bwrap ? await judgingSupport(found.bwrap) : undefined;
const skip = judging?.works
  ? false
  : `the judging sandbox does not work here (${found.reason ?? (judging && !judging.works ? judging.reason : "")})`;

describe("gantry init's baseline run (built CLI)", { timeout: 120_000 }, () => {
  it("runs the project's lint in the judging sandbox: what it writes to the tree, the home and /tmp is gone after, and init says where it ran", {
    skip,
  }, async () => {
    const home = mkdtempSync(join(tmpdir(), "gantry-init-checks-home-"));
    const marker = `gantry-init-lint-${process.pid}-${Date.now()}`;
    const root = committedRepo({
      "package.json": `${JSON.stringify({ type: "module", scripts: { test: "node --test", lint: "node lint.mjs" } })}\n`,
      // The project's lint, writing where a sandboxed command's writes must not last.
      "lint.mjs": [
        'import { writeFileSync } from "node:fs";',
        'import { homedir } from "node:os";',
        `writeFileSync("lint-wrote.txt", "x");`,
        `writeFileSync(homedir() + "/${marker}", "x");`,
        `writeFileSync("/tmp/${marker}", "x");`,
        'console.log("lint ok");',
        "",
      ].join("\n"),
    });
    const result = await gantry(root, ["init", "--json"], { env: { HOME: home } });
    assert.equal(result.code, 0, result.stderr);
    const baseline = JSON.parse(result.stdout).baseline as {
      key: string;
      passed: boolean;
      sandboxed: boolean;
    }[];
    assert.deepEqual(
      baseline.map((b) => [b.key, b.passed, b.sandboxed]),
      [["lint", true, true]],
    );
    assert.equal(existsSync(join(root, "lint-wrote.txt")), false, "the tree's layer was thrown away");
    assert.equal(existsSync(join(home, marker)), false, "the home's layer was thrown away");
    assert.equal(existsSync(join("/tmp", marker)), false, "its /tmp was its own");
    const text = await gantry(root, ["init", "--force"], { env: { HOME: home } });
    assert.match(text.stdout, /^ {2}lint passes on the project as it is \(in the judging sandbox\)$/m);
  });
});
