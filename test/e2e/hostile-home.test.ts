import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { baseConfig, gantry, makeProject, passingTest, prdStories, story } from "./harness.js";

/**
 * A hostile agent session under the sandbox, through the built CLI: it plants a `git` on a PATH entry in
 * the home, a global git config with a hooks path, a `~/.npmrc` and a package in the existing
 * `node_modules`. The real home and the dependency folder stay as they were; what the agent CLI declared
 * (`agent.command.writableDirs`) is written; the rest lands in the session's scratch home.
 */

const support = await sandboxSupport();
const noBwrap = support.works ? false : `bwrap does not work here: ${support.reason}`;
if (noBwrap) console.log(`# skipping: ${noBwrap}`);

const scratch = mkdtempSync(join(tmpdir(), "gantry-e2e-hostile-home-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const TOTAL = "export function total(a, b) {\n  return a + b;\n}\n";
const TOTAL_TEST = passingTest(
  "total",
  'const { total } = await import("../src/total.js");\n  assert.equal(total(2, 3), 5);',
);

describe("a session's home under the sandbox (built CLI)", () => {
  it("the real home and existing node_modules are read-only to it; its declared state and scratch home are not", {
    skip: noBwrap,
  }, async () => {
    const home = join(scratch, "home");
    mkdirSync(join(home, ".agent-state"), { recursive: true });
    const log = join(scratch, "agent.log");
    const attempt = (label: string, command: string) =>
      `( ${command} ) 2>/dev/null && echo "${label}:wrote" >> ${log} || echo "${label}:blocked" >> ${log}`;
    const script = join(scratch, "agent.sh");
    writeFileSync(
      script,
      [
        "#!/bin/sh",
        "cat >/dev/null",
        attempt("path-git", `mkdir -p ${home}/.cargo/bin && printf '#!/bin/sh\\n' > ${home}/.cargo/bin/git`),
        attempt(
          "git-config",
          `mkdir -p ${home}/.config/git && printf '[core]\\nhooksPath=/x\\n' > ${home}/.config/git/config`,
        ),
        attempt("npmrc", `echo node-options=--require=/x > ${home}/.npmrc`),
        attempt("node-modules", "echo 'module.exports = 5' > node_modules/total/index.js"),
        attempt("declared", `echo login > ${home}/.agent-state/token`),
        attempt(
          "scratch-home",
          'echo cache > "$HOME/.cache-file" && test "$HOME" != ' + JSON.stringify(home),
        ),
        "mkdir -p src test",
        `cat > src/total.js <<'EOF'\n${TOTAL}EOF`,
        `cat > test/total.test.js <<'EOF'\n${TOTAL_TEST}EOF`,
      ].join("\n"),
    );
    const config = baseConfig();
    config.agent = {
      ...(config.agent as object),
      sandbox: "bwrap",
      command: { run: `sh ${script}`, writableDirs: ["~/.agent-state"] },
    };
    const root = makeProject({
      stories: [story("US-1")],
      plan: {},
      config,
      files: {
        "node_modules/total/index.js": "module.exports = 1;\n",
        ".gitignore": ".gantry/runs/\n.gantry/lock\nnode_modules/\n",
      },
    });
    const result = await gantry(root, ["run", "--feature", "f"], { env: { HOME: home } });
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.equal(prdStories(root)["US-1"]?.status, "passed");
    assert.deepEqual(readFileSync(log, "utf8").trim().split("\n"), [
      "path-git:blocked",
      "git-config:blocked",
      "npmrc:blocked",
      "node-modules:blocked",
      "declared:wrote",
      "scratch-home:wrote",
    ]);
    for (const planted of [".cargo/bin/git", ".config/git/config", ".npmrc", ".cache-file"]) {
      assert.equal(existsSync(join(home, planted)), false, planted);
    }
    assert.equal(readFileSync(join(home, ".agent-state", "token"), "utf8"), "login\n");
    assert.equal(readFileSync(join(root, "node_modules/total/index.js"), "utf8"), "module.exports = 1;\n");
  });
});
