import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import { shellQuote } from "../../src/util/shell-quote.js";

describe("shellQuote", () => {
  it("single-quotes every word, a quote inside as '\\''", () => {
    assert.equal(shellQuote("it's"), "'it'\\''s'");
    assert.equal(shellQuote("plain"), "'plain'");
    assert.equal(shellQuote(""), "''");
  });

  it("hands /bin/sh each value back exactly, nothing expanded", () => {
    const values = [
      "it's",
      "$HOME",
      "`id`",
      "$(id)",
      "a b\tc",
      "line\nbreak",
      "*",
      "-n",
      "\\",
      "'",
      "''",
      "",
    ];
    const printed = execFileSync(
      "/bin/sh",
      ["-c", `for a in ${values.map(shellQuote).join(" ")}; do printf '%s\\0' "$a"; done`],
      { encoding: "utf8" },
    );
    assert.deepEqual(printed.split("\0").slice(0, -1), values);
  });
});
