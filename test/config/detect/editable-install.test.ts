import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { editableInstall, proposedWorktreeSetup } from "../../../src/config/detect/editable-install.js";
import { mainCheckoutImports } from "../../../src/pipeline/parallel/main-checkout-imports.js";

/** A project folder with the files given (a virtualenv's layout as venv and pip write it). */
function project(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-editable-")));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const SITE = "lib/python3.11/site-packages";

describe("editable installs a story worktree would import through", () => {
  it("finds pip's __editable__ .pth naming the project's src, and proposes a virtualenv and install of the worktree's own", () => {
    const root = project({ ".venv/pyvenv.cfg": "home = /usr/bin\n" });
    mkdirSync(join(root, ".venv", SITE), { recursive: true });
    writeFileSync(join(root, ".venv", SITE, "__editable__.calc-0.1.0.pth"), `${root}/src\n`);
    assert.deepEqual(editableInstall(root, root, {}), {
      venv: ".venv",
      file: `.venv/${SITE}/__editable__.calc-0.1.0.pth`,
    });
    assert.equal(proposedWorktreeSetup(root), "python3 -m venv .venv && .venv/bin/pip install -e .");
    assert.match(
      mainCheckoutImports(root, root, {}) ?? "",
      /points at the main checkout .*execution\.worktreeSetup/,
    );
  });

  it("finds an activated virtualenv outside the project ($VIRTUAL_ENV) and names it by its full path", () => {
    const root = project({});
    const venv = project({ "pyvenv.cfg": "", [`${SITE}/calc.egg-link`]: `${root}/src\n.\n` });
    assert.deepEqual(editableInstall(root, root, { VIRTUAL_ENV: venv }), {
      venv,
      file: join(venv, SITE, "calc.egg-link"),
    });
  });

  it("says nothing of a .pth naming another folder, nor of a folder that is no virtualenv", () => {
    const root = project({
      ".venv/pyvenv.cfg": "",
      [`.venv/${SITE}/distutils-precedence.pth`]: "import os\n",
      [`env/${SITE}/__editable__.calc.pth`]: "/somewhere/else/src\n",
      [`venv/${SITE}/calc.pth`]: "/tmp\n",
    });
    // venv/ has no pyvenv.cfg: not a virtualenv, whatever it holds.
    writeFileSync(join(root, "venv", SITE, "calc.pth"), `${root}/src\n`);
    assert.equal(editableInstall(root, root, {}), undefined);
    assert.equal(proposedWorktreeSetup(root), undefined);
    assert.equal(mainCheckoutImports(root, root, {}), undefined);
  });

  it("proposes the install where the build writes a version file the code imports (setuptools-scm)", () => {
    const root = project({
      "pyproject.toml": '[tool.setuptools_scm]\nwrite_to = "src/calc/_version.py"\n',
    });
    assert.equal(proposedWorktreeSetup(root), "python3 -m venv .venv && .venv/bin/pip install -e .");
  });
});
