// go and cargo variants: several packages / a workspace, build failures in one member, race detector,
// t.Run subtests, doc-tests.
import { expect } from "./expect.mjs";

/** A go module with two packages: mathx (3 tests, one with 2 t.Run subtests) and util (1 test). */
const goModule = (opts = {}) => ({
  "go.mod": "module example.com/variants\n\ngo 1.19\n",
  "mathx/mathx.go": "package mathx\n\nfunc Add(a, b int) int { return a + b }\n",
  "mathx/mathx_test.go": `package mathx

import "testing"

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("add")
	}
}

func TestStrings(t *testing.T) {
	t.Run("concatenates", func(t *testing.T) {
		if "a"+"b" != "${opts.failing ? "abc" : "ab"}" {
			t.Errorf("concatenate: got %q", "a"+"b")
		}
	})
	t.Run("repeats", func(t *testing.T) {
		if "a"+"a" != "aa" {
			t.Error("repeat")
		}
	})
}
`,
  "util/util.go": opts.broken
    ? "package util\n\nfunc Double(x int) int { return x * undefinedThing }\n"
    : "package util\n\nfunc Double(x int) int { return x * 2 }\n",
  "util/util_test.go": `package util

import "testing"

func TestDouble(t *testing.T) {
	if Double(2) != 4 {
		t.Fatal("double")
	}
}
`,
  ...(opts.race
    ? {
        "racy/racy.go": "package racy\n",
        "racy/racy_test.go": `package racy

import (
	"sync"
	"testing"
)

func TestCounter(t *testing.T) {
	n := 0
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); n++ }()
	}
	wg.Wait()
	_ = n
}
`,
      }
    : {}),
});
// Counted as gantry counts go tests, by leaves (a test with subtests counts through them): TestAdd,
// TestStrings/concatenates, TestStrings/repeats, TestDouble = 4.
const GO_ENV = { GOFLAGS: "-count=1", GOTOOLCHAIN: "local", GOPROXY: "off" };

/** A cargo workspace: `core` (2 unit tests, 1 doc-test) and `cli` (1 unit test, 1 integration test). */
const cargoWorkspace = (failing) => ({
  "Cargo.toml": '[workspace]\nmembers = ["core", "cli"]\nresolver = "2"\n',
  "core/Cargo.toml": '[package]\nname = "core_lib"\nversion = "0.1.0"\nedition = "2021"\n',
  "core/src/lib.rs": `/// Adds.
///
/// \`\`\`
/// assert_eq!(core_lib::add(1, 2), 3);
/// \`\`\`
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod tests {
    #[test]
    fn adds() {
        assert_eq!(super::add(2, 2), 4);
    }
    #[test]
    fn joins() {
        assert_eq!(format!("{}{}", "a", "b"), "${failing ? "abc" : "ab"}");
    }
}
`,
  "cli/Cargo.toml": '[package]\nname = "cli_app"\nversion = "0.1.0"\nedition = "2021"\n',
  "cli/src/lib.rs":
    "pub fn double(x: i32) -> i32 {\n    x * 2\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn doubles() {\n        assert_eq!(super::double(2), 4);\n    }\n}\n",
  "cli/tests/it.rs": "#[test]\nfn integration() {\n    assert_eq!(cli_app::double(3), 6);\n}\n",
});
const CARGO_ENV = { CARGO_TERM_COLOR: "never", CARGO_TARGET_DIR: "target" };

export const nativeVariants = [
  {
    file: "go/packages.plain.log",
    tool: "go",
    files: goModule(),
    cmd: "go test ./...",
    env: GO_ENV,
    // `ok  pkg` lines carry no counts: gantry must ask for -v or -json.
    expect: expect(0, "UNPARSED", "go", [0, 0, 0]),
  },
  {
    file: "go/packages.v.log",
    tool: "go",
    files: goModule(),
    cmd: "go test -v ./...",
    env: GO_ENV,
    expect: expect(0, "PASS", "go", [4, 0, 0]),
  },
  {
    file: "go/packages.json.log",
    tool: "go",
    files: goModule(),
    cmd: "go test -json ./...",
    env: GO_ENV,
    expect: expect(0, "PASS", "go", [4, 0, 0]),
  },
  {
    file: "go/subtestfail.json.log",
    tool: "go",
    files: goModule({ failing: true }),
    cmd: "go test -json ./...",
    env: GO_ENV,
    expect: expect(1, "TEST_FAILURE", "go", [3, 1, 0], ["TestStrings/concatenates"]),
  },
  {
    file: "go/onebroken.plain.log",
    tool: "go",
    files: goModule({ broken: true }),
    cmd: "go test ./...",
    env: GO_ENV,
    expect: expect(2, "BUILD_ERROR", "go", [0, 0, 0], ["example.com/variants/util"], "BUILD_ERROR"),
  },
  {
    file: "go/onebroken.v.log",
    tool: "go",
    files: goModule({ broken: true }),
    cmd: "go test -v ./...",
    env: GO_ENV,
    expect: expect(2, "BUILD_ERROR", "go", [3, 0, 0], ["example.com/variants/util"]),
  },
  {
    file: "go/onebroken.json.log",
    tool: "go",
    files: goModule({ broken: true }),
    cmd: "go test -json ./...",
    env: GO_ENV,
    expect: expect(2, "BUILD_ERROR", "go", [3, 0, 0], ["example.com/variants/util"]),
  },
  {
    file: "go/race.v.log",
    tool: "go",
    files: goModule({ race: true }),
    cmd: "go test -race -v ./...",
    // The first -race run builds the standard library with the race detector: minutes on a busy machine.
    timeoutMs: 1_200_000,
    env: GO_ENV,
    expect: expect(1, "TEST_FAILURE", "go", [4, 1, 0], ["TestCounter"]),
  },
  {
    file: "cargo/workspace.default.log",
    tool: "cargo",
    files: cargoWorkspace(false),
    cmd: "cargo test --offline --workspace",
    env: CARGO_ENV,
    expect: expect(0, "PASS", "cargo", [5, 0, 0]),
  },
  {
    file: "cargo/workspacefail.nofailfast.log",
    tool: "cargo",
    files: cargoWorkspace(true),
    cmd: "cargo test --offline --workspace --no-fail-fast",
    env: CARGO_ENV,
    expect: expect(101, "TEST_FAILURE", "cargo", [4, 1, 0], ["tests::joins"]),
  },
  {
    file: "cargo/doc.default.log",
    tool: "cargo",
    files: cargoWorkspace(false),
    cmd: "cargo test --offline --workspace --doc",
    env: CARGO_ENV,
    expect: expect(0, "PASS", "cargo", [1, 0, 0]),
  },
];
