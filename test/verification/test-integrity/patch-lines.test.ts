import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { patchLines, unquotePath } from "../../../src/verification/strategies/test-integrity/patch-lines.js";

const patch = (...lines: string[]): string => `${lines.join("\n")}\n`;

/** Reading `git diff -U0` output: lines by the hunk header's counts, file names as git quotes them. */
describe("test-integrity: the lines of a -U0 patch", () => {
  it("counts lines by the hunk's counts (one when a count is left out), skipping the no-newline notes", () => {
    const lines = patchLines(
      patch(
        "diff --git a/x.js b/x.js",
        "--- a/x.js",
        "+++ b/x.js",
        "@@ -3 +3 @@",
        "-old three",
        "\\ No newline at end of file",
        "+new three",
        "\\ No newline at end of file",
        "@@ -7,2 +7,0 @@",
        "-seven",
        "-eight",
        "@@ -12,0 +10,3 @@",
        "+ten",
        "+++ y.js",
        "+--- z",
        "garbage after the hunk",
        "+not counted",
      ),
      new Set(["x.js"]),
    );
    assert.deepEqual(lines.get("x.js"), {
      added: [
        { line: 3, text: "new three" },
        { line: 10, text: "ten" },
        { line: 11, text: "++ y.js" },
        { line: 12, text: "--- z" },
      ],
      removed: [
        { line: 3, text: "old three" },
        { line: 7, text: "seven" },
        { line: 8, text: "eight" },
      ],
    });
    assert.equal(lines.size, 1);
  });

  it("keeps each file's lines apart, leaves out files not wanted and deleted files, follows context lines", () => {
    const lines = patchLines(
      patch(
        "diff --git a/gone.js b/gone.js",
        "deleted file mode 100644",
        "--- a/gone.js",
        "+++ /dev/null",
        "@@ -1 +0,0 @@",
        "-bye",
        "diff --git a/skip.js b/skip.js",
        "--- a/skip.js",
        "+++ b/skip.js",
        "@@ -1 +1 @@",
        "-a",
        "+b",
        "diff --git a/two.js b/two.js",
        "--- a/two.js",
        "+++ b/two.js",
        "@@ -1,3 +1,3 @@",
        " same",
        "-was",
        "+is",
        " same too",
        "diff --git a/three.js b/three.js",
        "--- a/three.js",
        "+++ b/three.js",
        "@@ -1,12 +1,11 @@",
        ...Array.from({ length: 12 }, (_, i) => `-old ${i + 1}`),
        ...Array.from({ length: 11 }, (_, i) => `+new ${i + 1}`),
        "+++ b/two.js",
        "@@ -40 +40 @@",
        "-forty",
        "+40",
      ),
      new Set(["gone.js", "two.js", "three.js", "/dev/null", "dev/null", "ev/null"]),
    );
    assert.deepEqual([...lines.keys()], ["two.js", "three.js"]);
    assert.deepEqual(
      [
        lines.get("three.js")?.added.length,
        lines.get("three.js")?.removed.length,
        lines.get("three.js")?.added[10],
      ],
      [11, 12, { line: 11, text: "new 11" }],
    );
    assert.deepEqual(lines.get("two.js"), {
      added: [
        { line: 2, text: "is" },
        { line: 40, text: "40" },
      ],
      removed: [
        { line: 2, text: "was" },
        { line: 40, text: "forty" },
      ],
    });
  });

  it("gathers two diffs of one file (a rename's two names) into one entry", () => {
    const lines = patchLines(
      patch(
        "+++ b/t.js",
        "@@ -1,0 +2 @@",
        "+first",
        "diff --git a/t.js b/t.js",
        "+++ b/t.js",
        "@@ -5 +5,0 @@",
        "-gone",
      ),
      new Set(["t.js"]),
    );
    assert.deepEqual(lines.get("t.js"), {
      added: [{ line: 2, text: "first" }],
      removed: [{ line: 5, text: "gone" }],
    });
  });

  it("unquotes git's C-quoted names: escapes, octal UTF-8 bytes, and leaves plain names alone", () => {
    assert.equal(unquotePath('"b/tab\\there"'), "b/tab\there");
    assert.equal(unquotePath('"b/q\\"uote\\\\"'), 'b/q"uote\\');
    assert.equal(unquotePath('"b/\\303\\274tf \\001\\a\\b\\v\\f\\r\\n"'), "b/ütf \u0001\u0007\b\u000b\f\r\n");
    assert.equal(unquotePath("b/plain"), "b/plain");
    assert.equal(unquotePath('"'), '"');
    assert.equal(unquotePath('""'), "");
    assert.equal(unquotePath('"b/end\\"'), "b/end\\");
    assert.equal(unquotePath('"b/\\1x\\400"'), "b/1x400");
    assert.equal(unquotePath('"b/open'), '"b/open');
    assert.equal(unquotePath('b/"x"'), 'b/"x"');
  });

  it("never takes a header that merely holds a hunk's text for a hunk", () => {
    const lines = patchLines(
      patch(
        "diff --git a/x @@ -1 +1 @@ b/x @@ -1 +1 @@",
        "--- a/x @@ -1 +1 @@",
        "+++ b/x @@ -1 +1 @@",
        "@@ -2 +2 @@",
        "-two",
        "+2",
      ),
      new Set(["x @@ -1 +1 @@"]),
    );
    assert.deepEqual(lines.get("x @@ -1 +1 @@"), {
      added: [{ line: 2, text: "2" }],
      removed: [{ line: 2, text: "two" }],
    });
  });

  it("reads a quoted name in a file header", () => {
    const lines = patchLines(patch('+++ "b/a\\tb.js"', "@@ -0,0 +1 @@", "+x"), new Set(["a\tb.js"]));
    assert.deepEqual(lines.get("a\tb.js"), { added: [{ line: 1, text: "x" }], removed: [] });
  });
});
