import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { browserInstallEnded } from "../support/system-setup.js";
import { git } from "./harness.js";
import { honestRun, hostileRun, languageProject, SANDBOX_VARIANTS } from "./language-project.js";

/**
 * A Go module judged by real `go test -v ./...`, through the built CLI: an honest agent passes with the
 * sandbox off, on (the overlay layer over the tree and the home, where Go's build cache lives) and on over
 * a scratch copy (Go's build cache in the sandbox's /tmp); a hostile one that adds `t.Skip` to a test is
 * caught by test-integrity.
 */

// scripts/setup-system.mjs installs Go (golang-go) after the packages every test needs.
await browserInstallEnded();
const goVersion = spawnSync("go", ["version"], { encoding: "utf8" });
const noGo =
  goVersion.status === 0 ? false : "go is not installed (scripts/setup-system.mjs installs golang-go)";
const support = await sandboxSupport();
const noBwrap = support.works ? false : `bwrap does not work here: ${support.reason}`;
for (const reason of [noGo, noBwrap]) if (reason) console.log(`# skipping: ${reason}`);

const GO_MOD = "module example.com/shop\n\ngo 1.18\n";
const DOC = "// Package calc adds prices.\npackage calc\n";
const BASE_TEST = `package calc

import "testing"

func TestBase(t *testing.T) {
	if 1+1 != 2 {
		t.Fatal("arithmetic")
	}
}
`;
const ADD = "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n";
const ADD_TEST = `package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Fatalf("Add(2, 3) = %d, want 5", got)
	}
}
`;

function goProject(sandbox: string, extra: Record<string, string> = {}, short = false): string {
  return languageProject({
    sandbox,
    // What `gantry init` proposes for a go.mod (config/detect/go.ts): -v, so each test is counted.
    commands: { test: "go test -v ./..." },
    files: { "go.mod": GO_MOD, "calc/doc.go": DOC, "calc/base_test.go": BASE_TEST },
    written: { "calc/add.go": ADD, "calc/add_test.go": ADD_TEST, ...extra },
    short,
  });
}

describe("a Go project under go test (built CLI)", { skip: noGo }, () => {
  for (const { sandbox, layer, name } of SANDBOX_VARIANTS) {
    it(`${name}: an honest agent's story passes`, {
      skip: sandbox === "bwrap" ? noBwrap : false,
    }, async () => {
      const root = goProject(sandbox);
      await honestRun(root, layer, "go", 2);
      assert.equal(git(root, "show", "HEAD:calc/add.go"), ADD);
      assert.equal(existsSync(join(root, "calc", "calc.test")), false, "no test binary left in the tree");
    });
  }

  it("a t.Skip the agent adds to a test: test-integrity fails the story", async () => {
    const skipped = BASE_TEST.replace("{\n\tif", '{\n\tt.Skip("later")\n\tif');
    const root = goProject("auto", { "calc/base_test.go": skipped }, true);
    const findings = await hostileRun(root);
    assert.ok(
      findings.some((f) => f.kind === "marker-added" && f.file === "calc/base_test.go"),
      JSON.stringify(findings),
    );
  });
});
