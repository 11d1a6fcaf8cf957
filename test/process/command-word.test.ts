import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { activity } from "../../src/process/activity.js";
import { programLookups, programProblem, programWord } from "../../src/process/command-word.js";

const dir = mkdtempSync(join(tmpdir(), "gantry-command-word-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("the program a command line starts", () => {
  it("is its first plain word, after assignments and without quotes", () => {
    assert.equal(programWord("npm test"), "npm");
    assert.equal(programWord("  CI=1 FOO='a b' npx vitest run {{files}}"), "npx");
    assert.equal(programWord("'my agent' --flag"), "my agent");
    assert.equal(programWord('"./bin/run"&& echo'), "./bin/run");
    assert.equal(programWord("go\\ test ./..."), "go test");
    assert.equal(programWord("cd sub && make"), "cd");
    for (const unknowable of [
      "$AGENT -p",
      "(cd x; make)",
      "{ make; }",
      "`which x`",
      "ma*ke",
      "",
      "   ",
      "'open",
    ]) {
      assert.equal(programWord(unknowable), undefined, unknowable);
    }
  });

  it("is found by /bin/sh, or the shell's own words say why not", async () => {
    mkdirSync(join(dir, "bin"), { recursive: true });
    writeFileSync(join(dir, "bin", "agent"), "#!/bin/sh\necho ran > ran.txt\n");
    chmodSync(join(dir, "bin", "agent"), 0o755);
    writeFileSync(join(dir, "plain.sh"), "echo hi\n");
    const env = { ...process.env, PATH: `${join(dir, "bin")}:/usr/bin:/bin` };
    assert.equal(await programProblem("agent --model x", dir, env), undefined);
    assert.equal(await programProblem("cd sub && make", dir, env), undefined, "a builtin");
    assert.equal(await programProblem("if true; then x; fi", dir, env), undefined, "a keyword");
    assert.equal(await programProblem("./bin/agent", dir, env), undefined);
    assert.equal(await programProblem("$X run", dir, env), undefined, "left to the shell");
    const missing = await programProblem("FOO=1 claude -p", dir, env);
    assert.match(missing ?? "", /claude: not found$/);
    assert.match(missing ?? "", /^(\/bin\/)?sh: /, "the shell's error text");
    assert.equal(await programProblem("./plain.sh", dir, env), "./plain.sh: Permission denied");
    assert.equal(await programProblem("./nope.sh x", dir, env), "./nope.sh: not found");
    assert.equal(await programProblem("./bin", dir, env), "./bin: is not a file");
    assert.equal(existsSync(join(dir, "ran.txt")), false, "a program that was found is not run");
  });

  it("asked together, are looked up by one shell and answered as one at a time would be", async () => {
    const env = { ...process.env, PATH: `${join(dir, "bin")}:/usr/bin:/bin` };
    const lookUp = programLookups(dir, env);
    const before = activity().started;
    const found = await Promise.all([
      lookUp("agent -p"),
      lookUp("true"),
      lookUp("CI=1 agent x"),
      lookUp("cd a"),
    ]);
    assert.deepEqual(found, [undefined, undefined, undefined, undefined]);
    assert.equal(activity().started - before, 2, "one command (its start and its end)");
    const [missing, path, left, again] = await Promise.all([
      lookUp("claude -p"),
      lookUp("./plain.sh"),
      lookUp("$X run"),
      lookUp("'claude'"),
    ]);
    assert.equal(missing, await programProblem("claude -p", dir, env));
    assert.match(missing ?? "", /claude: not found$/);
    assert.equal(again, missing, "the same word, asked twice, answered once");
    assert.equal(path, "./plain.sh: Permission denied");
    assert.equal(left, undefined);
    assert.equal(existsSync(join(dir, "ran.txt")), false, "a program that was found is not run");
  });
});
