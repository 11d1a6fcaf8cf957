import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addedMarkers } from "../../../src/verification/strategies/test-integrity/markers.js";

/** The markers found when `lines` are added to `path` (line numbers from 1). */
function found(path: string, lines: string[], removed: string[] = []): string[] {
  return addedMarkers(path, {
    added: lines.map((text, i) => ({ line: i + 1, text })),
    removed: removed.map((text, i) => ({ line: i + 1, text })),
  }).map((hit) => `${hit.line}:${hit.marker.split(" ")[0]}`);
}

describe("skip / todo / only markers on added lines", () => {
  it("node:test: test.skip, { skip: true }, t.skip(), test.todo, { todo }, { only: true }, describe.skip", () => {
    assert.deepEqual(
      found("test/a.test.js", [
        'test.skip("a", () => {});',
        'test("b", { skip: true }, () => {});',
        'test("c", (t) => { t.skip("later"); });',
        'test.todo("d");',
        'test("e", { todo: "not yet" }, () => {});',
        'it.only("f", () => {});',
        'test("g", { only: true }, () => {});',
        'describe.skip("h", () => {});',
        "  skip: process.env.CI !== undefined,",
      ]),
      [
        "1:test.skip",
        "2:skip:",
        "3:t.skip(",
        "4:test.todo",
        "5:todo:",
        "6:it.only",
        "7:only:",
        "8:describe.skip",
        "9:skip:",
      ],
    );
  });

  it("vitest and jest: .skip .todo .only, xit, xdescribe, fit, it.skipIf, test.fails, test.concurrent.skip", () => {
    assert.deepEqual(
      found("src/cart.spec.ts", [
        'it.skip("a", () => {});',
        'xit("b", () => {});',
        'xdescribe("c", () => {});',
        'fit("d", () => {});',
        'it.skipIf(process.platform === "linux")("e", () => {});',
        'test.fails("f", () => {});',
        'test.concurrent.skip("g", async () => {});',
        'describe.only("h", () => {});',
        'it.todo("i");',
      ]),
      [
        "1:it.skip",
        "2:xit",
        "3:xdescribe",
        "4:fit",
        "5:it.skipIf",
        "6:test.fails",
        "7:test.concurrent.skip",
        "8:describe.only",
        "9:it.todo",
      ],
    );
  });

  it("mocha: .skip, .only and this.skip()", () => {
    assert.deepEqual(
      found("test/b.test.cjs", [
        'describe.skip("a", function () {',
        "  this.skip();",
        'context.only("c", () => {});',
      ]),
      ["1:describe.skip", "2:this.skip(", "3:context.only"],
    );
  });

  it("pytest and unittest: mark.skip, skipif, xfail, pytest.skip(), unittest.skip, skipTest", () => {
    assert.deepEqual(
      found("tests/test_cart.py", [
        "@pytest.mark.skip(reason='flaky')",
        "@pytest.mark.skipif(sys.platform == 'linux', reason='x')",
        "@pytest.mark.xfail",
        "    pytest.skip('later')",
        "@unittest.skip('later')",
        "        self.skipTest('later')",
        "@skip",
        "pytestmark = pytest.mark.skip",
      ]),
      [
        "1:pytest.mark.skip",
        "2:pytest.mark.skipif",
        "3:pytest.mark.xfail",
        "4:pytest.skip(",
        "5:unittest.skip",
        "6:skipTest(",
        "7:@skip",
        "8:pytest.mark.skip",
      ],
    );
  });

  it("go: t.Skip(, t.Skipf(, t.SkipNow()", () => {
    assert.deepEqual(
      found("pkg/cart_test.go", ['\tt.Skip("later")', '\tt.Skipf("on %s", os)', "\tt.SkipNow()"]),
      ["1:Skip", "2:Skipf", "3:SkipNow"],
    );
  });

  it("cargo: #[ignore] and #[ignore = reason]", () => {
    assert.deepEqual(found("src/lib.rs", ["    #[ignore]", '    #[ignore = "slow"]', "    #[test]"]), [
      "1:#[ignore",
      "2:#[ignore",
    ]);
  });

  it("finds nothing in ordinary test code, false options, or words that merely contain the names", () => {
    assert.deepEqual(
      found("test/c.test.ts", [
        'test("skips nothing", () => {',
        "  const result = list.filter((x) => x.only);",
        '  test("d", { skip: false }, () => {});',
        "  assert.equal(skipped, 0);",
        '  it("only checks one thing", () => {});',
        "  // a test named testing.skipper",
      ]),
      [],
    );
    assert.deepEqual(found("tests/test_d.py", ["def test_skip_list():", "    assert skipper() == 1"]), []);
    assert.deepEqual(found("pkg/x_test.go", ["\tif skip { return }"]), []);
  });

  it("does not count a marker line that was only moved or re-indented", () => {
    assert.deepEqual(
      found("test/a.test.js", ['    it.skip("old", () => {});'], ['it.skip("old", () => {});']),
      [],
    );
    // The same text added twice but removed once: one of them is new.
    assert.deepEqual(
      found(
        "test/a.test.js",
        ['it.skip("x", () => {});', 'it.skip("x", () => {});'],
        ['it.skip("x", () => {});'],
      ),
      ["2:it.skip"],
    );
  });

  it("looks for no markers in files of a family it has no rules for", () => {
    assert.deepEqual(found("README.md", ["test.skip("]), []);
  });
});
