import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  checkScriptChanges,
  scriptPaths,
} from "../../../src/verification/strategies/test-integrity/check-scripts.js";
import { treeChanges } from "../../../src/verification/strategies/test-integrity/tree-diff.js";
import { git, write } from "../../support/fixture-repo.js";

describe("the scripts a story check or a command reviewer runs", () => {
  it("names a shell's script, a program path, and another interpreter's script in a tools folder or named so", () => {
    assert.deepEqual(scriptPaths("sh tools/smoke.sh"), ["tools/smoke.sh"]);
    assert.deepEqual(scriptPaths("CI=1 bash -e ./ci/run && ./bin/check --fast"), ["bin/check", "ci/run"]);
    assert.deepEqual(scriptPaths("node scripts/review.mjs < /dev/stdin"), ["scripts/review.mjs"]);
    assert.deepEqual(scriptPaths("python3 smoke_test.py; node build.mjs"), ["build.mjs", "smoke_test.py"]);
    assert.deepEqual(scriptPaths("cd web && sh 'tools/demo.sh' | tee out"), ["tools/demo.sh"]);
  });

  it("leaves the app's own code, inline scripts, modules, runners and paths outside the tree alone", () => {
    assert.deepEqual(scriptPaths("node src/server.js"), [], "the demo command starting the app");
    assert.deepEqual(scriptPaths("sh -c 'exit 0'"), []);
    assert.deepEqual(scriptPaths("python -m pytest tests/smoke"), []);
    assert.deepEqual(scriptPaths("node --test test/"), []);
    assert.deepEqual(scriptPaths("sh /opt/checks/smoke.sh; bash ../x.sh; sh $SCRIPT"), []);
    assert.deepEqual(scriptPaths("npm run smoke"), []);
  });

  describe("a story that changed them (real git trees)", () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-check-scripts-")));
    after(() => rmSync(root, { recursive: true, force: true }));
    git(root, "init", "-q", "-b", "main");
    write(root, "tools/smoke.sh", "grep -q ok src/app.js\n");
    write(root, "tools/review.mjs", "console.log('{\"findings\":[]}');\n");
    write(root, "Makefile", "demo:\n\tnode src/app.js\n");
    write(root, "package.json", '{ "scripts": { "build": "tsc", "other": "x" } }\n');
    write(root, "src/app.js", "ok\n");
    const commit = () => {
      git(root, "add", "-A");
      git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "c");
      return git(root, "rev-parse", "HEAD^{tree}");
    };
    const base = commit();
    write(root, "tools/smoke.sh", "exit 0\n");
    write(root, "tools/review.mjs", "console.log('{\"findings\":[]}'); // quiet\n");
    write(root, "Makefile", "demo:\n\ttrue\n");
    write(root, "package.json", '{ "scripts": { "build": "true", "other": "y" } }\n');
    write(root, "src/app.js", "changed\n");
    const tree = commit();
    const checks = [
      { what: "quality.commands.smoke (the story check)", command: "sh tools/smoke.sh" },
      { what: "quality.commands.build (the story check)", command: "npm run build" },
      { what: "quality.commands.demo (the story check)", command: "make demo" },
      { what: "the review panel's reviewer lint-bot", command: "node tools/review.mjs" },
    ];

    it("finds each changed one, naming the check that runs it; the app's code is not one", async () => {
      const changes = await treeChanges(root, base, tree, undefined);
      const found = await checkScriptChanges({ root, base, tree, changes, checks });
      assert.deepEqual(found.map((f) => `${f.file}:${f.line ?? "-"}: ${f.evidence}`).sort(), [
        "Makefile:2: Makefile (run by quality.commands.demo (the story check)) changed at line 2: true",
        'package.json:1: scripts.build: "tsc" → "true" (run by quality.commands.build (the story check))',
        "tools/review.mjs:1: tools/review.mjs (run by the review panel's reviewer lint-bot) changed at line 1: console.log('{\"findings\":[]}'); // quiet",
        "tools/smoke.sh:1: tools/smoke.sh (run by quality.commands.smoke (the story check)) changed at line 1: exit 0",
      ]);
    });

    it("for the test commands, only the scripts they name: their Makefile and package scripts are test-config's", async () => {
      const changes = await treeChanges(root, base, tree, undefined);
      const runners = [
        { what: "quality.commands.test", command: "sh tools/smoke.sh && make demo && npm run build" },
      ];
      const found = await checkScriptChanges({
        root,
        base,
        tree,
        changes,
        checks: runners,
        scriptsOnly: true,
      });
      assert.deepEqual(
        found.map((f) => `${f.file}: ${f.evidence}`),
        ["tools/smoke.sh: tools/smoke.sh (run by quality.commands.test) changed at line 1: exit 0"],
      );
    });

    it("finds nothing when no check is configured", async () => {
      const changes = await treeChanges(root, base, tree, undefined);
      assert.deepEqual(await checkScriptChanges({ root, base, tree, changes, checks: [] }), []);
    });
  });
});
