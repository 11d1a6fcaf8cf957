import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { baseConfig, gantry, lastRun, makeProject, passingTest, prdStories, story } from "./harness.js";

/**
 * A story that needs a new dependency, through the built CLI with npm: the session cannot write the
 * existing node_modules, so it changes package.json and gantry runs `quality.commands.install` in the
 * sandbox before it judges.
 */

const support = await sandboxSupport();
const noBwrap = support.works ? false : `bwrap does not work here: ${support.reason}`;

const HELPER = {
  "vendor/helper/package.json": '{ "name": "helper", "version": "1.0.0", "main": "index.js" }\n',
  "vendor/helper/index.js": "module.exports = { add: (a, b) => a + b };\n",
};
const MANIFEST =
  '{ "name": "e2e-project", "type": "module", "private": true, "dependencies": { "helper": "file:vendor/helper" } }\n';
const TOTAL = 'import helper from "helper";\nexport function total(a, b) {\n  return helper.add(a, b);\n}\n';
const TOTAL_TEST = passingTest(
  "total",
  'const { total } = await import("../src/total.js");\n  assert.equal(total(2, 3), 5);',
);

describe("quality.commands.install (built CLI, npm)", () => {
  it("a story that adds a dependency: the session cannot install it, gantry does, then the story passes", {
    skip: noBwrap,
  }, async () => {
    const config = baseConfig();
    config.agent = { ...(config.agent as object), sandbox: "bwrap" };
    const quality = config.quality as { commands: Record<string, string> };
    quality.commands.install = "npm install --no-audit --no-fund --offline --no-package-lock";
    const root = makeProject({
      stories: [story("US-1")],
      plan: {
        "US-1": [
          {
            write: {
              ...HELPER,
              "package.json": MANIFEST,
              "src/total.js": TOTAL,
              "test/total.test.js": TOTAL_TEST,
            },
            sh: "mkdir node_modules/helper 2>/dev/null && echo session-installed > .agent-install.log || echo session-blocked > .agent-install.log",
          },
        ],
      },
      config,
      files: {
        "node_modules/.keep": "",
        ".gitignore":
          ".gantry/runs/\n.gantry/lock\n.agent-log.jsonl\n.agent-plan.json\nnode_modules/\n.agent-install.log\n",
      },
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.equal(readFileSync(join(root, ".agent-install.log"), "utf8"), "session-blocked\n");
    assert.equal(prdStories(root)["US-1"]?.status, "passed");
    assert.ok(
      existsSync(join(root, "node_modules", "helper", "index.js")),
      "gantry installed the dependency",
    );
    const verified = lastRun(root).events.filter((e) => e.type === "verify:result");
    assert.ok(verified.some((e) => e.status === "PASS"));
  });
});
