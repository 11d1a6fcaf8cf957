import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  addedSuppressions,
  hasSuppressionRules,
} from "../../../src/verification/strategies/test-integrity/suppressions.js";

/** The suppressions found when `lines` are added to `path` (line numbers from 1), as `line:name`. */
function found(path: string, lines: string[], removed: string[] = []): string[] {
  return addedSuppressions(path, {
    added: lines.map((text, i) => ({ line: i + 1, text })),
    removed: removed.map((text, i) => ({ line: i + 1, text })),
  }).map((hit) => `${hit.line}:${hit.suppression}`);
}

describe("lint / type-check suppressions on added lines", () => {
  it("JS / TS: eslint, biome, TypeScript, oxlint, tslint, deno, prettier, stylelint, with the spacing they allow", () => {
    assert.deepEqual(
      found("src/a.ts", [
        "// eslint-disable-next-line no-console",
        "/* eslint-disable */",
        "const x = y as any; // eslint-disable-line",
        "//eslint-disable-next-line",
        '/* eslint no-console: "off" */',
        "// biome-ignore lint/suspicious/noExplicitAny: needed",
        "//biome-ignore lint: x",
        "/* biome-ignore-all lint: x */",
        "// rome-ignore lint: x",
        "// @ts-ignore",
        "  //   @ts-expect-error wrong on purpose",
        "// @ts-nocheck",
        "/** @ts-ignore */",
        "{/* @ts-ignore */}",
        " * eslint-disable",
        "// oxlint-disable-next-line no-debugger",
        "// tslint:disable",
        "// deno-lint-ignore no-explicit-any",
        "// prettier-ignore",
        "/* stylelint-disable */",
        "<!-- eslint-disable -->",
        "// svelte-ignore a11y-click-events",
      ]),
      [
        "1:eslint-disable-next-line (eslint)",
        "2:eslint-disable (eslint)",
        "3:eslint-disable-line (eslint)",
        "4:eslint-disable-next-line (eslint)",
        "5:eslint (eslint)",
        "6:biome-ignore (biome)",
        "7:biome-ignore (biome)",
        "8:biome-ignore-all (biome)",
        "9:rome-ignore (biome)",
        "10:@ts-ignore (typescript)",
        "11:@ts-expect-error (typescript)",
        "12:@ts-nocheck (typescript)",
        "13:@ts-ignore (typescript)",
        "14:@ts-ignore (typescript)",
        "15:eslint-disable (eslint)",
        "16:oxlint-disable-next-line (oxlint)",
        "17:tslint:disable (tslint)",
        "18:deno-lint-ignore (deno lint)",
        "19:prettier-ignore (prettier)",
        "20:stylelint-disable (stylelint)",
        "21:eslint-disable (eslint)",
        "22:svelte-ignore (svelte)",
      ],
    );
  });

  it("JS / TS: the words in code, strings or other comments are not suppressions", () => {
    assert.deepEqual(
      found("src/b.js", [
        'const rule = "eslint-disable";',
        "// TODO: remove the eslint-disable above",
        "// explain why ts-ignore is bad",
        "const ignore = biome.ignore;",
        "// @ts-check",
        "/* eslint-env node */",
        "const noqa = 1; # noqa",
      ]),
      [],
    );
  });

  it("Python: type: ignore, noqa, pyright, mypy, pylint, ruff, and the formatters' skips, any case and spacing", () => {
    assert.deepEqual(
      found("pkg/mod.py", [
        "x = f()  # type: ignore",
        "x = f()  #type:ignore[attr-defined]",
        "import os  # noqa",
        "import sys  # NOQA: F401",
        "y = 1  #noqa:E501",
        "# ruff: noqa",
        "# flake8: noqa",
        "z = g()  # pyright: ignore[reportGeneralTypeIssues]",
        "# pyright: basic",
        "# mypy: ignore-errors",
        "# pylint: disable=invalid-name",
        "# fmt: off",
        "w = h()  # nosec",
        "# pyre-ignore[16]",
      ]),
      [
        "1:type: ignore (mypy/pyright)",
        "2:type:ignore (mypy/pyright)",
        "3:noqa (flake8/ruff)",
        "4:NOQA (flake8/ruff)",
        "5:noqa (flake8/ruff)",
        "6:ruff: noqa (ruff/flake8)",
        "7:flake8: noqa (ruff/flake8)",
        "8:pyright: ignore (pyright)",
        "9:pyright: basic (pyright)",
        "10:mypy: ignore-errors (mypy)",
        "11:pylint: disable (pylint)",
        "12:fmt: off (black/ruff format)",
        "13:nosec (bandit)",
        "14:pyre-ignore (pyre)",
      ],
    );
    assert.deepEqual(
      found("pkg/mod.pyi", ["# pyright: strict", "# mypy: strict", "x: int  # the type of x", "ignore = 1"]),
      [],
      "a stricter setting or a plain comment is not a suppression",
    );
  });

  it("Go, Rust, Ruby, Java / Kotlin, C#, PHP, Swift, C / C++, shell, CSS", () => {
    const first = (path: string, line: string) => found(path, [line])[0];
    assert.equal(first("cmd/main.go", "x := f() //nolint:errcheck"), "1:nolint (golangci-lint)");
    assert.equal(first("cmd/main.go", "// nolint"), "1:nolint (golangci-lint)");
    assert.equal(first("cmd/main.go", "//lint:ignore SA1019 old"), "1:lint:ignore (staticcheck)");
    assert.equal(first("cmd/main.go", "//lint:file-ignore U1000 x"), "1:lint:file-ignore (staticcheck)");
    assert.equal(first("cmd/main.go", "// #nosec G104"), "1:#nosec (gosec)");
    assert.equal(first("cmd/broken.go", "//go:build ignore"), "1:go:build ignore (go build)");
    assert.equal(first("cmd/broken.go", "// +build ignore"), "1:+build ignore (go build)");
    assert.equal(first("src/lib.rs", "#[allow(dead_code)]"), "1:#[allow( (rustc/clippy)");
    assert.equal(first("src/lib.rs", "#![allow(clippy::all)]"), "1:#![allow( (rustc/clippy)");
    assert.equal(first("src/lib.rs", "# [ allow ( unused ) ]"), "1:# [ allow ( (rustc/clippy)");
    assert.equal(first("src/lib.rs", "#[expect(unused)]"), "1:#[expect( (rustc/clippy)");
    assert.match(first("src/lib.rs", '#[cfg_attr(feature = "x", allow(unused))]') ?? "", /^1:#\[cfg_attr/);
    assert.equal(first("src/lib.rs", "#[rustfmt::skip]"), "1:#[rustfmt::skip (rustfmt)");
    assert.equal(first("app/a.rb", "x = 1 # rubocop:disable Style/X"), "1:rubocop:disable (rubocop)");
    assert.equal(first("A.java", '@SuppressWarnings("unchecked")'), "1:@SuppressWarnings (javac/kotlinc)");
    assert.equal(first("A.kt", '@file:Suppress("UNUSED")'), "1:@file:Suppress (javac/kotlinc)");
    assert.equal(first("A.java", "int x; // NOSONAR"), "1:NOSONAR (sonar)");
    assert.equal(first("A.cs", "#pragma warning disable CS0168"), "1:#pragma warning disable (C# compiler)");
    assert.equal(first("A.cs", '[SuppressMessage("x", "y")]'), "1:[SuppressMessage (code analysis)");
    assert.equal(first("a.php", "// phpcs:ignore"), "1:phpcs:ignore (phpcs)");
    assert.equal(
      first("a.php", "/** @phpstan-ignore-next-line */"),
      "1:@phpstan-ignore-next-line (phpstan/psalm)",
    );
    assert.equal(first("a.swift", "// swiftlint:disable force_cast"), "1:swiftlint:disable (swiftlint)");
    assert.equal(first("a.cpp", "int x; // NOLINT"), "1:NOLINT (clang-tidy)");
    assert.equal(
      first("a.c", '#pragma GCC diagnostic ignored "-Wall"'),
      "1:#pragma GCC diagnostic ignored (gcc/clang)",
    );
    assert.equal(first("run.sh", "# shellcheck disable=SC2086"), "1:shellcheck disable (shellcheck)");
    assert.equal(
      first("a.scss", "/* stylelint-disable-next-line */"),
      "1:stylelint-disable-next-line (stylelint)",
    );
    assert.deepEqual(
      found("src/lib.rs", ["#[derive(Debug)]", "// allow(unused) would hide it", "#[test]"]),
      [],
    );
  });

  it("every rule, each named with its tool (one line each, that only it matches)", () => {
    const cases: [string, string, string][] = [
      ["a.css", "/* biome-ignore lint: x */", "biome-ignore (biome)"],
      ["a.less", "/* prettier-ignore */", "prettier-ignore (prettier)"],
      ["a.py", "# pytype: disable=attribute-error", "pytype: disable (pytype)"],
      ["a.py", "# isort: skip", "isort: skip (isort)"],
      ["a.py", "# pyre-fixme[6]", "pyre-fixme (pyre)"],
      ["a.rs", "#[cfg_attr(test, allow(unused))]", "#[cfg_attr(test, allow( (rustc/clippy)"],
      ["A.java", "// CHECKSTYLE:OFF", "CHECKSTYLE:OFF (checkstyle)"],
      ["A.java", "// checkstyle : off", "checkstyle : off (checkstyle)"],
      ["A.java", "//noinspection unchecked", "noinspection (IntelliJ)"],
      ["A.kt", "// ktlint-disable no-wildcard-imports", "ktlint-disable (ktlint)"],
      ["A.java", '@SuppressFBWarnings("EI")', "@SuppressFBWarnings (javac/kotlinc)"],
      ["A.cs", "// ReSharper disable once UnusedVariable", "ReSharper disable (ReSharper)"],
      ["A.cs", '[assembly: SuppressMessage("x", "y")]', "[assembly: SuppressMessage (code analysis)"],
      ["a.php", "# phpcs:disable", "phpcs:disable (phpcs)"],
      ["a.php", "/** @psalm-suppress InvalidArgument */", "@psalm-suppress (phpstan/psalm)"],
      ["a.cc", "// cppcheck-suppress nullPointer", "cppcheck-suppress (cppcheck)"],
      ["a.hpp", "int x; // NOLINTNEXTLINE", "NOLINTNEXTLINE (clang-tidy)"],
      ["a.c", "#pragma clang diagnostic ignored", "#pragma clang diagnostic ignored (gcc/clang)"],
      ["a.rb", "# rubocop:todo Metrics/AbcSize", "rubocop:todo (rubocop)"],
      ["a.js", "/*  eslint-disable  */", "eslint-disable (eslint)"],
      ["a.rs", "#  [  allow  ( unused ) ]", "# [ allow ( (rustc/clippy)"],
    ];
    for (const [path, line, expected] of cases) {
      assert.deepEqual(found(path, [line]), [`1:${expected}`], `${path}: ${line}`);
    }
  });

  it("every file extension with rules reads its language's suppressions, and not another's", () => {
    const families: [string[], string, string][] = [
      [
        [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".vue", ".svelte", ".astro"],
        "// @ts-ignore",
        "# noqa",
      ],
      [[".css", ".scss", ".sass", ".less"], "/* stylelint-disable */", "// @ts-ignore"],
      [[".py", ".pyi"], "# noqa", "// @ts-ignore"],
      [[".go"], "//nolint", "# noqa"],
      [[".rs"], "#[allow(unused)]", "//nolint"],
      [[".rb"], "# rubocop:disable X", "# noqa"],
      [[".java", ".kt", ".kts"], "@SuppressWarnings", "# noqa"],
      [[".cs"], "#pragma warning disable", "# noqa"],
      [[".php"], "// phpcs:ignore", "# noqa"],
      [[".swift"], "// swiftlint:disable x", "# noqa"],
      [[".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"], "// NOLINT", "# noqa"],
      [[".sh", ".bash"], "# shellcheck disable=SC1", "# noqa"],
    ];
    for (const [extensions, own, other] of families) {
      for (const extension of extensions) {
        assert.equal(found(`src/f${extension}`, [own]).length, 1, `${extension}: ${own}`);
        assert.deepEqual(found(`src/f${extension}`, [other]), [], `${extension}: ${other}`);
      }
    }
  });

  it("a moved or re-indented line is not new; each removed line excuses one added line", () => {
    assert.deepEqual(
      found("src/a.ts", ["  // @ts-ignore", "// @ts-ignore", "x(); // noqa"], ["// @ts-ignore"]),
      ["2:@ts-ignore (typescript)"],
    );
    assert.deepEqual(found("src/a.py", ["x()  # noqa"], ["x()  # noqa"]), []);
  });

  it("only files of known languages are read, by extension in any case", () => {
    assert.equal(hasSuppressionRules("src/a.TS"), true);
    assert.equal(hasSuppressionRules("src/types.d.ts"), true);
    assert.equal(hasSuppressionRules("README.md"), false);
    assert.equal(hasSuppressionRules("Makefile"), false);
    assert.deepEqual(found("README.md", ["// @ts-ignore", "# noqa"]), []);
    assert.deepEqual(found("notes.txt", ["// eslint-disable"]), []);
  });

  it("keeps the line's text, trimmed, at most 200 characters", () => {
    const [hit] = addedSuppressions("src/a.js", {
      added: [{ line: 7, text: `   // eslint-disable-line ${"x".repeat(300)}` }],
      removed: [],
    });
    assert.equal(hit?.line, 7);
    assert.equal(hit?.text.length, 200);
    assert.ok(hit?.text.startsWith("// eslint-disable-line x"));
  });
});
