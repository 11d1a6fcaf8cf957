import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { reapMarked } from "../chaos/harness.js";
import { baseConfig, chownTree, gantry, git, lastRun, makeProject, prdStories, story } from "./harness.js";
import { hostileNodeTest, TOTAL } from "./hostile-node-test.js";

/**
 * The built CLI run as an unprivileged user (nobody, through setpriv, when this process is root), with
 * agent.sandbox "bwrap": the kernel here refuses an unprivileged overlayfs, so judging commands run over a
 * scratch copy of the tree. The agent's own test passes honestly and, while it runs, rewrites the code it
 * tests, writes into the tree and /tmp and starts a process that would outlive the run: none of it survives.
 */

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

/** What runs a command as nobody from root; nothing when this process is unprivileged already. */
function asNobody(): string[] {
  return isRoot
    ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--inh-caps=-all"]
    : [];
}

async function unavailable(): Promise<string | false> {
  if (isRoot && spawnSync("setpriv", ["--help"]).status !== 0) return "setpriv not found";
  const argv = [
    ...asNobody(),
    "bwrap",
    "--ro-bind",
    "/",
    "/",
    "--unshare-user",
    "--unshare-pid",
    "--",
    "true",
  ];
  const probe = spawnSync(argv[0] as string, argv.slice(1));
  if (probe.status !== 0)
    return `bwrap does not work for an unprivileged user here: ${String(probe.stderr).trim()}`;
  const support = await sandboxSupport();
  return support.works ? false : `bwrap does not work here: ${support.reason}`;
}

const skip = await unavailable();
if (skip) console.log(`# skipping: ${skip}`);

const scratch = mkdtempSync(join(tmpdir(), "gantry-e2e-unprivileged-"));
// The unprivileged user's home lies in it.
chmodSync(scratch, 0o755);
after(() => rmSync(scratch, { recursive: true, force: true }));

describe("judging commands as an unprivileged user (built CLI, node's runner)", () => {
  it('agent.sandbox "bwrap": the story passes, and what its test wrote or started does not survive', {
    skip,
  }, async () => {
    const mark = `unprivileged-${process.pid}-${Date.now()}`;
    const home = join(scratch, "home");
    mkdirSync(home, { recursive: true });
    const config = { ...baseConfig(), agent: { ...(baseConfig().agent as object), sandbox: "bwrap" } };
    const root = makeProject({
      stories: [story("US-1")],
      plan: { "US-1": [{ write: { "src/total.js": TOTAL, "test/total.test.js": hostileNodeTest(mark) } }] },
      config,
    });
    if (isRoot) for (const dir of [root, home]) chownTree(dir, NOBODY);
    const state = join(home, ".local", "state");
    const result = await gantry(root, ["run", "--feature", "f"], {
      prefix: asNobody(),
      env: { HOME: home, XDG_STATE_HOME: state, GANTRY_CHAOS_MARKER: mark },
      timeoutMs: 300_000,
    });
    const left = await reapMarked(mark);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.equal(prdStories(root)["US-1"]?.status, "passed");
    const layer = /judging commands run over a scratch copy/.test(result.stderr) ? "copy" : "overlay";
    console.log(
      `# judged over the ${layer} layer${layer === "copy" ? "" : " (overlayfs works unprivileged here)"}`,
    );

    const said = lastRun(root)
      .events.filter((e) => e.type === "verify:result")
      .map((e) => String(e.rawOutputTail ?? ""))
      .join("\n");
    assert.match(said, /WRITE-SRC:wrote/, "the test ran and could write the tree it judged");
    assert.match(said, /WRITE-NEW:wrote/);
    assert.match(said, /WRITE-TMP:wrote/);
    assert.match(said, /SEEN-STATE:\(empty\)/, "gantry's state directory is an empty folder to it");
    assert.deepEqual(left, [], "a process the test started outlived the run");
    assert.equal(
      readFileSync(join(root, "src", "total.js"), "utf8"),
      TOTAL,
      "the tree is as the agent left it",
    );
    assert.equal(existsSync(join(root, `planted-${mark}.js`)), false, "a file the test added is gone");
    assert.equal(git(root, "-c", "safe.directory=*", "show", "HEAD:src/total.js"), TOTAL);
    assert.equal(existsSync(`/tmp/planted-${mark}`), false, "nothing planted in /tmp");
    assert.equal(existsSync(join(home, ".npmrc")), false, "nothing planted in the home");
    const copies = join(state, "gantry", "judging-copies");
    const leftCopies = existsSync(copies)
      ? readdirSync(copies).flatMap((pid) => readdirSync(join(copies, pid)))
      : [];
    assert.deepEqual(leftCopies, [], "every scratch copy was removed");
  });
});
