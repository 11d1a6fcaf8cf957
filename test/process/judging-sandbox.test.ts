import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { execCommand } from "../../src/process/executor.js";
import { type JudgingSandbox, judgingWrapper } from "../../src/process/judging-sandbox.js";
import { judgingSupport } from "../../src/process/judging-support.js";
import { decideSandbox, sandboxSupport } from "../../src/process/sandbox.js";
import { reapMarked } from "../chaos/harness.js";

const scratch = mkdtempSync(join(tmpdir(), "gantry-judging-sandbox-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const bwrap = await sandboxSupport();
const judging = bwrap.works && bwrap.bwrap ? await judgingSupport(bwrap.bwrap) : undefined;
const skip = judging?.works
  ? false
  : `the judging sandbox does not work here: ${judging?.works === false ? judging.reason : bwrap.reason}`;
if (skip) console.log(`# skipping: ${skip}`);

/** A project tree with .gantry/, and a home holding gantry's state directory with a key in it. */
function fixture(name: string) {
  const root = join(scratch, name, "project");
  const home = join(scratch, name, "home");
  mkdirSync(join(root, ".gantry"), { recursive: true });
  mkdirSync(join(home, ".local", "state", "gantry"), { recursive: true });
  writeFileSync(join(root, "code.js"), "original\n");
  writeFileSync(join(root, ".gantry", "config.json"), "{}\n");
  writeFileSync(join(home, ".local", "state", "gantry", "key"), "secret\n");
  const env = { ...process.env, HOME: home, XDG_STATE_HOME: join(home, ".local", "state") };
  return { root, home, env };
}

function run(command: string, root: string, env: NodeJS.ProcessEnv) {
  if (!judging?.works) throw new Error("no judging sandbox");
  const sandbox: JudgingSandbox = { programs: judging.programs, repository: root };
  return execCommand({
    command,
    cwd: root,
    env,
    timeoutMs: 20_000,
    wrapper: judgingWrapper(sandbox, root, env),
  });
}

describe("judgingWrapper, real runs", { skip }, () => {
  test("writes to the tree, .git and the home land in a layer that is gone after", async () => {
    const { root, home, env } = fixture("layer");
    const result = await run(
      'echo changed > code.js && cat code.js && mkdir -p .git && touch .git/planted && echo x > "$HOME/.npmrc" && echo y > /tmp/planted && cat /tmp/planted',
      root,
      env,
    );
    assert.equal(result.exitCode, 0, result.output);
    assert.match(result.output, /changed/);
    assert.equal(readFileSync(join(root, "code.js"), "utf8"), "original\n");
    assert.equal(existsSync(join(root, ".git")), false);
    assert.equal(existsSync(join(home, ".npmrc")), false);
    assert.equal(existsSync("/tmp/planted"), false);
  });

  test("gantry's state directory and the tree's .gantry/ are empty to it; it holds no capability and cannot unmount a layer", async () => {
    const { root, env } = fixture("hidden");
    const state = join(env.XDG_STATE_HOME as string, "gantry");
    const result = await run(
      `ls -A ${state} | wc -l; ls -A .gantry | wc -l; grep CapEff /proc/self/status; umount "$PWD" && echo unmounted || echo kept`,
      root,
      env,
    );
    assert.equal(result.exitCode, 0, result.output);
    const lines = result.output.trim().split("\n");
    assert.deepEqual(lines.slice(0, 2), ["0", "0"]);
    assert.match(lines[2] ?? "", /^CapEff:\s+0+$/);
    assert.equal(lines.at(-1), "kept");
  });

  test("a process it starts with setsid does not outlive it (its PID namespace)", async () => {
    const { root, env } = fixture("pid");
    const mark = `judging-pid-${process.pid}-${Date.now()}`;
    const result = await run("setsid sleep 30 </dev/null >/dev/null 2>&1 & sleep 0.2", root, {
      ...env,
      GANTRY_CHAOS_MARKER: mark,
    });
    assert.equal(result.exitCode, 0, result.output);
    assert.deepEqual(await reapMarked(mark, 2000), []);
  });
});

describe("without setpriv", () => {
  test('judging commands run over a scratch copy, "bwrap" and "auto" alike, and "auto" says so', {
    skip: bwrap.works ? false : `bwrap does not work here: ${bwrap.reason}`,
  }, async () => {
    // A PATH entry outside /tmp and the home holding bwrap alone.
    const bin = mkdtempSync(join(process.cwd(), ".gantry-test-no-setpriv-"));
    after(() => rmSync(bin, { recursive: true, force: true }));
    symlinkSync(bwrap.bwrap as string, join(bin, "bwrap"));
    const root = join(scratch, "no-setpriv");
    mkdirSync(root, { recursive: true });
    const env = {
      PATH: bin,
      HOME: join(scratch, "no-setpriv-home"),
      XDG_STATE_HOME: join(scratch, "no-setpriv-state"),
    };
    for (const mode of ["bwrap", "auto"] as const) {
      const decided = await decideSandbox(mode, root, env);
      assert.equal(decided.kind, "sandboxed");
      assert.equal(decided.kind === "sandboxed" && decided.judging?.layer, "copy");
      assert.equal(
        decided.kind === "sandboxed" ? decided.judgingWarning : "",
        "gantry: judging commands run over a scratch copy of the tree (overlayfs: setpriv (util-linux) not found)",
      );
    }
  });
});
