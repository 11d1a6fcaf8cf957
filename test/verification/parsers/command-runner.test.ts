import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runnerOfCommand, segmentRunner } from "../../../src/verification/parsers/command-runner.js";

describe("the runner a test command calls", () => {
  test("each runner gantry reads, called directly", () => {
    const cases: [string, string][] = [
      ["node --test", "node-test"],
      ["node --import tsx --test --test-reporter=spec test/", "node-test"],
      ["tsx --test test/a.test.ts", "node-test"],
      ["vitest run", "vitest"],
      ["jest --ci", "jest"],
      ["mocha test/", "mocha"],
      ["_mocha", "mocha"],
      ["pytest -q", "pytest"],
      ["py.test", "pytest"],
      ["python -m pytest tests/", "pytest"],
      ["python3 -m pytest", "pytest"],
      ["python3.11 -m pytest", "pytest"],
      ["go test ./...", "go"],
      ["cargo test --offline", "cargo"],
    ];
    for (const [command, runner] of cases) assert.equal(runnerOfCommand(command), runner, command);
  });

  test("through npx, package managers, env assignments, paths and quotes", () => {
    const cases: [string, string][] = [
      ["npx vitest run", "vitest"],
      ["npx --yes jest", "jest"],
      ["bunx vitest", "vitest"],
      ["pnpm exec jest", "jest"],
      ["pnpm dlx vitest run", "vitest"],
      ["yarn exec mocha", "mocha"],
      ["npm exec -- vitest run", "vitest"],
      ["uv run pytest", "pytest"],
      ["poetry run python -m pytest", "pytest"],
      ["CI=1 FORCE_COLOR=0 node --test", "node-test"],
      ["env CI=1 jest", "jest"],
      ["cross-env NODE_ENV=test mocha", "mocha"],
      ["./node_modules/.bin/jest", "jest"],
      ["node_modules\\.bin\\vitest.cmd run", "vitest"],
      ["'vitest' run", "vitest"],
      ['"node" "--test"', "node-test"],
      ["time go test ./...", "go"],
    ];
    for (const [command, runner] of cases) assert.equal(runnerOfCommand(command), runner, command);
  });

  test("one runner among other steps of the command is still that runner", () => {
    assert.equal(runnerOfCommand("tsc -p . && node --test test/"), "node-test");
    assert.equal(runnerOfCommand("npm run build; cargo test"), "cargo");
    assert.equal(runnerOfCommand("jest --ci || exit 1"), "jest");
    assert.equal(runnerOfCommand("go test ./... | tee out.log"), "go");
    assert.equal(runnerOfCommand("echo start\npytest"), "pytest");
  });

  test("no runner, or two, is none: the output is then detected and checked for a second summary", () => {
    for (const command of [
      undefined,
      "",
      "npm test",
      "make test",
      "echo all good",
      "node script.js",
      "node test/run.js --testing",
      "go build ./...",
      "cargo build",
      "python -m unittest",
      "python -c pytest",
      "npx",
      "npm run vitest",
      "node --test && cargo test",
      "vitest run; jest",
    ]) {
      assert.equal(runnerOfCommand(command), undefined, String(command));
    }
  });

  test("a runner's name as an argument is not the runner that runs", () => {
    assert.equal(runnerOfCommand("node --test test/jest/ test/vitest.test.js"), "node-test");
    assert.equal(runnerOfCommand("echo jest"), undefined);
    assert.equal(runnerOfCommand("cat cargo"), undefined);
    assert.equal(segmentRunner(["make", "vitest"]), undefined);
    assert.equal(segmentRunner(["go", "vet", "test"]), undefined);
    assert.equal(segmentRunner(["cargo", "bench", "test"]), undefined);
  });

  test("the same runner twice is still one runner", () => {
    assert.equal(runnerOfCommand("node --test a.test.js && node --test b.test.js"), "node-test");
  });

  test("an empty segment names nothing", () => {
    assert.equal(segmentRunner([]), undefined);
    assert.equal(segmentRunner(["A=1"]), undefined);
  });
});

describe("the runner a test command calls, word by word as the shell reads it", () => {
  test("every package manager's run-a-program subcommand, with its own flags before the program", () => {
    const cases: [string, string][] = [
      ["npm x vitest run", "vitest"],
      ["npm exec", ""],
      ["npm exec --", ""],
      ["yarn dlx jest", "jest"],
      ["bun x vitest", "vitest"],
      ["pipenv run pytest", "pytest"],
      ["pnpm exec --silent jest", "jest"],
      ["pnpm dlx --quiet vitest run", "vitest"],
      ["npm run x", ""],
      ["bun run vitest", ""],
      ["pipenv shell pytest", ""],
    ];
    for (const [command, runner] of cases) assert.equal(runnerOfCommand(command) ?? "", runner, command);
  });

  test("quoted parts of a word are joined with the rest, as the shell does", () => {
    assert.equal(runnerOfCommand(`py"test" -q`), "pytest");
    assert.equal(runnerOfCommand("je''st"), "jest");
    assert.equal(runnerOfCommand("'py'te'st'"), "pytest");
    assert.equal(runnerOfCommand("'jest'.cmd"), "jest");
    assert.equal(runnerOfCommand(`node "--"'test'`), "node-test");
    assert.equal(runnerOfCommand(`"jest`), undefined, "an unclosed quote is not taken off");
    assert.equal(runnerOfCommand(`'jest"`), undefined);
  });

  test("only an extension at the end of a program's name is dropped", () => {
    assert.equal(runnerOfCommand("je.jsst"), undefined);
    assert.equal(runnerOfCommand("jest.cmd"), "jest");
    assert.equal(runnerOfCommand("jest.cmd.bak"), undefined);
  });

  test("NAME=value before the program is an assignment only when NAME is a shell name", () => {
    assert.equal(runnerOfCommand("FOO-BAR=1 jest"), undefined);
    assert.equal(runnerOfCommand("FOO_BAR=1 jest"), "jest");
  });

  test("python with a version in its name runs pytest as a module; other programs named like it do not", () => {
    assert.equal(runnerOfCommand("python310 -m pytest"), "pytest");
    assert.equal(runnerOfCommand("python3.12 -m pytest"), "pytest");
    assert.equal(runnerOfCommand("micropython -m pytest"), undefined);
    assert.equal(runnerOfCommand("python-config -m pytest"), undefined);
    assert.equal(runnerOfCommand("python3.x -m pytest"), undefined);
  });

  test("--test runs node's runner only through node or tsx", () => {
    assert.equal(runnerOfCommand("./run-tests.sh --test"), undefined);
    assert.equal(runnerOfCommand("deno --test"), undefined);
  });

  test("leading blanks and tabs of a step are not a word", () => {
    assert.equal(runnerOfCommand("make build &&\t jest"), "jest");
    assert.equal(runnerOfCommand("   vitest run"), "vitest");
  });
});
