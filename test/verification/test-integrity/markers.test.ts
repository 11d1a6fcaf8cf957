import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addedMarkers, hasMarkerRules } from "../../../src/verification/strategies/test-integrity/markers.js";

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
    assert.deepEqual(
      found("test/a.test.js", ['it.skip("old", () => {});'], ['    it.skip("old", () => {});']),
      [],
      "the removed line's indentation does not count either",
    );
    assert.deepEqual(
      found(
        "test/a.test.js",
        ['  it.skip("x", () => {});', '  it.skip("x", () => {});'],
        ['it.skip("x", () => {});'],
      ),
      ["2:it.skip"],
      "one removed line excuses one added line, however indented",
    );
    assert.deepEqual(
      found("test/a.test.js", ['it.skip("x");', 'it.skip("x");'], ['it.skip("x");', '  it.skip("x");']),
      [],
      "two removed lines that differ only in indentation excuse two added ones",
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
    assert.equal(hasMarkerRules("README.md"), false);
    assert.equal(hasMarkerRules("types.d.ts"), false);
    for (const path of ["a.test.ts", "t.py", "x_test.go", "lib.rs", "a_spec.rb", "ATest.java", "B.kt"]) {
      assert.equal(hasMarkerRules(path), true, path);
    }
    for (const path of ["CTest.php", "D.cs", "E.swift", "f_test.exs"])
      assert.equal(hasMarkerRules(path), true);
  });

  it("names the marker without its spacing, with the frameworks that read it, and keeps the line trimmed", () => {
    const hits = addedMarkers("test/a.test.js", {
      added: [
        { line: 3, text: '  xit ("b", () => {});' },
        { line: 4, text: '  test("c", (t) => { t.skip ("later"); });' },
        { line: 5, text: '  test("d", {skip:true}, () => {});' },
        { line: 6, text: '  it.only("e", () => {});' },
        { line: 7, text: `test.skip("${"x".repeat(300)}");` },
      ],
      removed: [],
    });
    assert.deepEqual(
      hits.map((h) => [
        h.line,
        h.marker,
        h.text.length >= 200 ? `${h.text.slice(0, 12)}… (${h.text.length})` : h.text,
      ]),
      [
        [3, "xit (jest/vitest/mocha)", 'xit ("b", () => {});'],
        [4, "t.skip( (node:test/mocha/vitest)", 'test("c", (t) => { t.skip ("later"); });'],
        [5, "skip: (node:test)", 'test("d", {skip:true}, () => {});'],
        [6, "it.only (node:test/vitest/jest/mocha)", 'it.only("e", () => {});'],
        [7, "test.skip (node:test/vitest/jest/mocha)", 'test.skip("x… (200)'],
      ],
    );
  });

  it("names the frameworks each rule is for", () => {
    const marker = (path: string, text: string) =>
      addedMarkers(path, { added: [{ line: 1, text }], removed: [] })[0]?.marker;
    const table: [string, string, string][] = [
      ["a.test.js", "fit('x')", "fit (jest/vitest/mocha)"],
      ["a.test.js", "test('x', { todo: 'later' })", "todo: (node:test)"],
      ["test_a.py", "@pytest.mark.xfail", "pytest.mark.xfail (pytest)"],
      ["test_a.py", "    pytest.importorskip('numpy')", "pytest.importorskip( (pytest)"],
      ["test_a.py", "@unittest.expectedFailure", "unittest.expectedFailure (unittest)"],
      ["test_a.py", "@skipIf(True, 'x')", "@skipIf (pytest/unittest)"],
      ["test_a.py", "raise SkipTest('x')", "SkipTest (unittest)"],
      ["a_test.go", "\tt.SkipNow()", "SkipNow (go test)"],
      ["lib.rs", "#[ignore]", "#[ignore (cargo test)"],
      ["a_spec.rb", "  xit 'x' do", "xit (rspec)"],
      ["a_spec.rb", "  pending 'x'", "pending (rspec/minitest)"],
      ["a_spec.rb", "  it 'x', skip: true do", "skip: (rspec)"],
      ["ATest.java", "  @Disabled", "@Disabled (JUnit)"],
      ["BTest.kt", "  @Ignore", "@Ignore (JUnit)"],
      ["CTest.php", "$this->markTestSkipped();", "markTestSkipped( (PHPUnit)"],
      ["DTests.cs", "[Ignore]", "[Ignore (NUnit/MSTest/xUnit)"],
      ["ETests.swift", "throw XCTSkip()", "XCTSkip (XCTest)"],
      ["f_test.exs", "@tag :skip", "@tag:skip (ExUnit)"],
    ];
    assert.deepEqual(
      table.map(([path, text]) => [path, text, marker(path, text)]),
      table,
    );
  });

  it("sees markers written with the spacing the language allows", () => {
    assert.deepEqual(
      found("tests/test_e.py", [
        "    pytest.skip ('later')",
        "        self.skipTest ('later')",
        "    @skip",
        "    @pytest.mark.xfail",
      ]),
      ["1:pytest.skip(", "2:skipTest(", "3:@skip", "4:pytest.mark.xfail"],
    );
    assert.deepEqual(found("pkg/e_test.go", ["	t. Skip()"]), ["1:Skip"]);
    assert.deepEqual(found("src/e.rs", ["    # [ ignore ]"]), ["1:#[ignore"]);
    assert.deepEqual(found("pkg/py.go", ["	t.Skip()"]), ["1:Skip"]);
  });

  it("does not take look-alikes for options: a ternary, a longer key, a false value without spaces", () => {
    assert.deepEqual(
      found("test/f.test.js", [
        "const mode = flaky ? skip : run;",
        "const result = { skipped: 0, todos: 1 };",
        'test("g", {skip:false}, () => {});',
        'test("h", { only:null }, () => {});',
        "assert.deepEqual(decorators, ['@skip']);",
      ]),
      [],
    );
    assert.deepEqual(found("tests/test_g.py", ["assert decorators == ['@skip']", "x = t.skipped()"]), []);
  });

  it("RSpec / minitest, JUnit, PHPUnit, NUnit / xUnit, XCTest and ExUnit markers", () => {
    assert.deepEqual(
      found("spec/cart_spec.rb", [
        "  xit 'adds' do",
        "  fdescribe Cart do",
        "    skip 'later'",
        "    pending",
        "  it 'x', skip: true do",
        "  it 'y', :focus => true do",
        "  it 'skips nothing' do",
        "  it 'z', :skip=>true do",
        '    expect(size).to eq "fit"',
      ]),
      ["1:xit", "2:fdescribe", "3:skip", "4:pending", "5:skip:", "6::focus=>", "8::skip=>"],
    );
    assert.deepEqual(
      found("src/test/CartTest.java", [
        '    @Disabled("flaky")',
        "    @DisabledOnOs(OS.LINUX)",
        "  @Ignore",
        "  @Test",
      ]),
      ["1:@Disabled", "2:@DisabledOnOs", "3:@Ignore"],
    );
    assert.deepEqual(
      found("src/test/CartTest.kt", [
        "    @Disabled",
        "    @DisabledOnOs(OS.LINUX)",
        '    val s = "@Ignore"',
      ]),
      ["1:@Disabled", "2:@DisabledOnOs"],
    );
    assert.deepEqual(found("src/test/OtherTest.java", ['    String s = "@Ignore";']), []);
    assert.deepEqual(
      found("tests/CartTest.php", [
        "        $this->markTestSkipped('later');",
        "        $this->markTestIncomplete ('x');",
      ]),
      ["1:markTestSkipped(", "2:markTestIncomplete("],
    );
    assert.deepEqual(
      found("Tests/CartTests.cs", [
        '    [Ignore("later")]',
        '    [Fact(Skip = "flaky")]',
        "    [Fact]",
        "    [ Ignore ]",
        '    [Fact(Skip="x")]',
      ]),
      ["1:[Ignore", "2:Skip=", "4:[Ignore", "5:Skip="],
    );
    assert.deepEqual(
      found("Tests/CartTests.swift", ['        throw XCTSkip("later")', "        try XCTSkipIf(true)"]),
      ["1:XCTSkip", "2:XCTSkipIf"],
    );
    assert.deepEqual(
      found("test/cart_test.exs", [
        "  @tag :skip",
        '  @moduletag skip: "later"',
        "  @tag :slow",
        '  @tag skip: "x"',
        "  @moduletag  skip: true",
        "  @tag:skip",
        '  x = "@tag :skip"',
      ]),
      ["1:@tag:skip", "2:@moduletagskip:", "4:@tagskip:", "5:@moduletagskip:", "6:@tag:skip"],
    );
  });
});
