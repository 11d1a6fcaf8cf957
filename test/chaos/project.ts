import { join } from "node:path";
import { type AgentSession, makeProject, passingTest, REPO, story } from "../e2e/harness.js";

/** The projects the chaos tests run gantry on: the sh agent and its plan, the sh test runner, the config. */

export const QUICK_AGENT = join(REPO, "test", "chaos", "fixtures", "quick-agent.sh");

/** A session of the sh agent (fixtures/quick-agent.sh): the e2e scripted agent's, and misbehaviour. */
export interface ChaosSession extends AgentSession {
  /** Paths deleted before anything is written. */
  remove?: string[];
  /** Variables whose name=value lines are printed. */
  printEnv?: string[];
  /** Prints without end. */
  spam?: boolean;
  /** Never exits on its own. */
  hang?: boolean;
  /** Ignores SIGTERM (and so do the processes it starts). */
  ignoreTerm?: boolean;
  /** Leaves a `sleep 60` behind holding stdout and stderr: in its own session with setsid, else in ours. */
  background?: "setsid" | "group";
  /** Files written after the sleep: a session that goes on writing after its gantry is gone. */
  lateWrite?: Record<string, string>;
  /** Retitles a story in prd.json (`"title": "<from>"` → `<to>`), as a user would while the run goes on. */
  editPrd?: { path: string; from: string; to: string };
}

/**
 * A stand-in test runner in sh (a node start per test run would dominate the chaos tests' time): a test
 * file written by `moduleWithTest` passes when its module returns the value it asserts (read from the
 * text), a test that imports no module passes; TAP out, exit 1 on a failure. With CHAOS_SLOW_TESTS set it
 * first sleeps, so a signal can land while the tests run.
 */
export const QUICK_CHECK = `#!/bin/sh
[ -n "$CHAOS_SLOW_TESTS" ] && sleep 30
[ $# -gt 0 ] || set -- test/*.test.js
echo "TAP version 13"
n=0
fail=0
for f in "$@"; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  mod=$(sed -n 's#.*import("\\.\\./src/\\([^"]*\\)").*#\\1#p' "$f")
  want=$(sed -n 's/.*assert\\.equal([a-z0-9]*(), \\([0-9]*\\)).*/\\1/p' "$f")
  got=$want
  [ -n "$mod" ] && got=$(sed -n 's/.*return \\([0-9]*\\);.*/\\1/p' "src/$mod" 2>/dev/null)
  if [ "$got" = "$want" ]; then
    echo "ok $n - $f"
  else
    fail=$((fail + 1))
    printf 'not ok %s - %s\\n  ---\\n  message: "expected %s, got %s"\\n  ...\\n' "$n" "$f" "$want" "$got"
  fi
done
echo "1..$n"
echo "# tests $n"
echo "# pass $((n - fail))"
echo "# fail $fail"
[ "$fail" -eq 0 ]
`;

/**
 * The real thing, where a test must run as JavaScript (print, fail with a message): imports the given
 * test files (all of test/ without arguments) into one node process, reported by node:test's spec reporter.
 */
export const NODE_RUNNER = `import { readdirSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
const args = process.argv.slice(2);
const files = args.length ? args : readdirSync("test").filter((f) => f.endsWith(".test.js")).map((f) => \`test/\${f}\`);
for (const file of files) await import(pathToFileURL(resolve(file)).href);
`;
export const NODE_TESTS = {
  test: "node --test-reporter=spec tools/run-tests.mjs",
  testScoped: "node --test-reporter=spec tools/run-tests.mjs {{files}}",
};

/**
 * A config that keeps every step cheap: the sh agent, the sh test runner scoped to the changed tests, a
 * grep for a `LINT_ERROR` marker as lint and a sed that deletes it as lintFix.
 */
export function chaosConfig(patch: { agent?: object; quality?: object; execution?: object } = {}) {
  return {
    // The chaos stories carry no acceptance criteria; the readiness gate is tested in test/e2e/readiness.test.ts.
    readiness: { enabled: false },
    agent: {
      default: "command",
      timeoutSeconds: 30,
      command: { run: `sh ${JSON.stringify(QUICK_AGENT)}` },
      ...patch.agent,
    },
    quality: {
      commands: {
        test: "sh tools/check.sh",
        testScoped: "sh tools/check.sh {{files}}",
        lint: "! grep -rn LINT_ERROR src",
        lintFix: "sed -i '/LINT_ERROR/d' src/*.js",
      } as Record<string, string | undefined>,
      timeoutSeconds: 60,
      ...patch.quality,
    },
    execution: {
      maxStageRetries: 5,
      rectify: { enabled: true, maxAttempts: 2 },
      autofix: { enabled: true, maxAttempts: 2 },
      regression: { mode: "deferred" },
      ...patch.execution,
    },
    routing: { tiers: ["fast", "balanced", "powerful"] },
  } as Record<string, unknown> & { quality: { commands: Record<string, string | undefined> } };
}

/** The scripted agent's plan as the files quick-agent.sh reads: `.agent-plan/<story>/<n>/`. */
export function quickAgentFiles(plan: Record<string, ChaosSession[]>): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [id, sessions] of Object.entries(plan)) {
    sessions.forEach((session, n) => {
      const dir = `.agent-plan/${id}/${n}`;
      files[`${dir}/.session`] = "";
      for (const [path, content] of Object.entries(session.write ?? {}))
        files[`${dir}/files/${path}`] = content;
      const lines = (items: string[]) => `${items.join("\n")}\n`;
      for (const [path, content] of Object.entries(session.lateWrite ?? {}))
        files[`${dir}/late/${path}`] = content;
      if (session.remove) files[`${dir}/remove`] = lines(session.remove);
      if (session.printEnv) files[`${dir}/printenv`] = lines(session.printEnv);
      if (session.print) files[`${dir}/print`] = session.print;
      if (session.editPrd) {
        const { path, from, to } = session.editPrd;
        files[`${dir}/edit-prd`] = lines([path, from, to]);
      }
      if (session.background) files[`${dir}/background`] = session.background;
      if (session.ignoreTerm) files[`${dir}/ignore-term`] = "";
      if (session.spam) files[`${dir}/spam`] = "";
      if (session.hang) files[`${dir}/hang`] = "";
      if (session.sleepMs) files[`${dir}/sleep`] = String(session.sleepMs / 1000);
      if (session.exit !== undefined) files[`${dir}/exit`] = String(session.exit);
    });
  }
  return files;
}

/** A temporary git repository (test/e2e's baseline) with the sh agent playing `plan` and the quick tools. */
export function chaosProject(spec: {
  plan: Record<string, ChaosSession[]>;
  stories?: Record<string, unknown>[];
  config?: Record<string, unknown>;
  files?: Record<string, string>;
}): string {
  return makeProject({
    stories: spec.stories ?? Object.keys(spec.plan).map((id) => story(id)),
    plan: {},
    config: spec.config ?? chaosConfig(),
    files: {
      "tools/check.sh": QUICK_CHECK,
      "tools/run-tests.mjs": NODE_RUNNER,
      ".gitignore": ".gantry/runs/\n.gantry/lock\n.agent-log.jsonl\n.agent-plan.json\n.agent-plan/\n",
      ...quickAgentFiles(spec.plan),
      ...spec.files,
    },
  });
}

/** A module `src/<name>.js` and its test: the test passes only when the module returns `expected`. */
export function moduleWithTest(name: string, value: number, expected = value, lintError = false) {
  return {
    [`src/${name}.js`]: `export function ${name}() {\n  return ${value};\n}\n${lintError ? "// LINT_ERROR\n" : ""}`,
    [`test/${name}.test.js`]: passingTest(
      name,
      `const { ${name} } = await import("../src/${name}.js");\n  assert.equal(${name}(), ${expected});`,
    ),
  };
}

export { story };
