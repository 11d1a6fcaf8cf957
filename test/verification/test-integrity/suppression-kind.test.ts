import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addedSuppressions } from "../../../src/verification/strategies/test-integrity/suppressions.js";

/** Each added line's suppression as `specific:codes` or `blanket`. */
function kinds(path: string, lines: string[]): string[] {
  return addedSuppressions(path, {
    added: lines.map((text, i) => ({ line: i + 1, text })),
    removed: [],
  }).map((hit) => (hit.specific ? `specific:${hit.codes.join(",")}` : "blanket"));
}

describe("a suppression is specific or blanket", () => {
  it("Python: a coded type: ignore / noqa / pyright ignore is specific; bare ones and file-wide switches are blanket", () => {
    assert.deepEqual(
      kinds("pkg/mod.py", [
        "x = f()  # type: ignore[attr-defined]",
        "x = f()  # type: ignore[attr-defined, union-attr]",
        "x = f()  # type: ignore",
        "y = o._p  # noqa: SLF001",
        "import os  # noqa",
        "# ruff: noqa: E501",
        "z = g()  # pyright: ignore[reportGeneralTypeIssues]",
        "# pyright: basic",
        "# mypy: ignore-errors",
        "# pylint: disable=invalid-name",
        "w = h()  # nosec B603",
        "w = h()  # nosec",
        "# fmt: off",
      ]),
      [
        "specific:attr-defined",
        "specific:attr-defined,union-attr",
        "blanket",
        "specific:SLF001",
        "blanket",
        "blanket",
        "specific:reportGeneralTypeIssues",
        "blanket",
        "blanket",
        "specific:invalid-name",
        "specific:B603",
        "blanket",
        "specific:",
      ],
    );
  });

  it("JS / TS: a next-line / line disable naming its rule and @ts-expect-error with text are specific", () => {
    assert.deepEqual(
      kinds("src/a.ts", [
        "// eslint-disable-next-line no-console",
        "// eslint-disable-next-line",
        "/* eslint-disable no-console */",
        "/* eslint-disable */",
        "const x = y as any; // eslint-disable-line @typescript-eslint/no-explicit-any",
        "// biome-ignore lint/style/useConst: set later",
        "/* biome-ignore-all lint: x */",
        "// @ts-expect-error the library's types lack the overload",
        "// @ts-expect-error",
        "// @ts-ignore the types are wrong",
        "// @ts-nocheck",
        "// deno-lint-ignore-file",
      ]),
      [
        "specific:no-console",
        "blanket",
        "blanket",
        "blanket",
        "specific:@typescript-eslint/no-explicit-any",
        "specific:lint/style/useConst",
        "blanket",
        "specific:",
        "blanket",
        "blanket",
        "blanket",
        "blanket",
      ],
    );
  });

  it("Go, Rust, C, Java: a named check is specific; a bare or crate-, file-wide one is blanket", () => {
    assert.deepEqual(
      kinds("cmd/main.go", ["x() //nolint:errcheck", "x() //nolint", "//lint:file-ignore U1000 x"]),
      ["specific:errcheck", "blanket", "blanket"],
    );
    assert.deepEqual(
      kinds("src/lib.rs", ["#[allow(clippy::too_many_arguments)]", "#![allow(clippy::all)]"]),
      ["specific:clippy::too_many_arguments", "blanket"],
    );
    assert.deepEqual(kinds("a.cpp", ["int x; // NOLINT(bugprone-narrowing)", "int y; // NOLINT"]), [
      "specific:bugprone-narrowing",
      "blanket",
    ]);
    assert.deepEqual(kinds("A.java", ['@SuppressWarnings("unchecked")', "int x; // NOSONAR"]), [
      "specific:unchecked",
      "blanket",
    ]);
  });
});
