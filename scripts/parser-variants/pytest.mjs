// pytest variants. `pytest`: pytest 9 (`python3 -m pytest`); `pytest-debian`: Debian's pytest 7 with the
// xdist, cov and rerunfailures plugins (`/usr/bin/python3 -m pytest`).
import { expect } from "./expect.mjs";

const PY = "python3 -m pytest -p no:cacheprovider";
const DEB = "/usr/bin/python3 -m pytest -p no:cacheprovider";

/** 3 passing tests, one of which emits a DeprecationWarning. */
const warns = {
  "tests/test_api.py": `import warnings


def old_api():
    warnings.warn("old_api is deprecated", DeprecationWarning)
    return 2


def test_old_api():
    assert old_api() == 2


def test_adds():
    assert 1 + 1 == 2


def test_joins():
    assert "a" + "b" == "ab"
`,
};

/** 2 plain tests and a unittest case with 3 subTests; `failing` makes subtest i=2 fail. */
const subtests = (failing) => ({
  "tests/test_sub.py": `import unittest


class TestSquares(unittest.TestCase):
    def test_squares(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertEqual(i * i, ${failing ? "i + i" : "i ** 2"})


def test_adds():
    assert 1 + 1 == 2


def test_joins():
    assert "a" + "b" == "ab"
`,
});

/** The pytest-subtests plugin: a unittest subTest loop (3, i=1 failing when `failing`), the `subtests` fixture (2), a plain test. */
const pluginSubtests = (failing) => ({
  "tests/test_s.py": `import unittest


class TestSquares(unittest.TestCase):
    def test_squares(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertEqual(i * i, ${failing ? "i + i" : "i ** 2"})


def test_adds():
    assert 1 + 1 == 2


def test_fixture(subtests):
    for i in range(2):
        with subtests.test(i=i):
            assert i >= 0
`,
});

/** 5 tests; 2 fail (an assertion in a class, a thrown error). */
const failing = {
  "tests/test_math.py": `class TestStrings:
    def test_concatenates(self):
        assert "a" + "b" == "abc"

    def test_uppercases(self):
        assert "a".upper() == "A"


def test_adds():
    assert 1 + 2 == 3


def test_throws_on_bad_input():
    raise ValueError("boom: bad input")


def test_parses():
    assert int("42") == 42
`,
};

/** 4 passing tests spread over two files (for workers) and a package measured by coverage. */
const coverable = {
  "calc/__init__.py":
    "def add(a, b):\n    return a + b\n\n\ndef unused(x):\n    if x:\n        return 1\n    return 0\n",
  "tests/test_one.py":
    "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_add_neg():\n    assert add(-1, 1) == 0\n",
  "tests/test_two.py": "def test_a():\n    assert True\n\n\ndef test_b():\n    assert 2 * 2 == 4\n",
  "conftest.py": "",
};

/** A test that fails on its first try and passes on its rerun (a marker file), and 3 stable ones. */
const flaky = (alwaysFails) => ({
  "tests/test_flaky.py": `import os


def test_flaky(tmp_path_factory):
    marker = os.path.join(os.path.dirname(__file__), ".ran")
    if ${alwaysFails ? "True" : "not os.path.exists(marker)"}:
        open(marker, "w").close()
        assert False, "flaky: first attempt fails"


def test_a():
    assert True


def test_b():
    assert 1 == 1


def test_c():
    assert "x" == "x"
`,
});

/** 2 passing, 1 xfail that fails (xfailed), 1 xfail that passes (xpassed), 1 skipped. */
const xfails = {
  "tests/test_x.py": `import pytest


def test_a():
    assert True


def test_b():
    assert True


@pytest.mark.xfail(reason="known bug")
def test_known_bug():
    assert 1 == 2


@pytest.mark.xfail(reason="fixed upstream?")
def test_maybe_fixed():
    assert 1 == 1


@pytest.mark.skip(reason="not on this platform")
def test_skipped():
    pass
`,
};

/** One file that cannot be collected (a missing module) next to one that could run. */
const collectErr = {
  "tests/test_ok.py": "def test_ok():\n    assert True\n",
  "tests/test_missing.py": "import not_a_module_here\n\n\ndef test_never():\n    assert not_a_module_here\n",
};

export const pytestVariants = [
  {
    file: "pytest/warnings.q.log",
    tool: "pytest",
    files: warns,
    cmd: `${PY} -q`,
    expect: expect(0, "PASS", "pytest", [3, 0, 0]),
  },
  {
    file: "pytest/warnings.default.log",
    tool: "pytest",
    files: warns,
    cmd: PY,
    expect: expect(0, "PASS", "pytest", [3, 0, 0]),
  },
  {
    file: "pytest/warnings.debian-q.log",
    tool: "pytest-debian",
    files: warns,
    cmd: `${DEB} -q`,
    expect: expect(0, "PASS", "pytest", [3, 0, 0]),
  },
  {
    file: "pytest/subtests.q.log",
    tool: "pytest",
    files: subtests(false),
    cmd: `${PY} -q`,
    expect: expect(0, "PASS", "pytest", [3, 0, 0]),
  },
  {
    file: "pytest/subtests.default.log",
    tool: "pytest",
    files: subtests(false),
    cmd: PY,
    expect: expect(0, "PASS", "pytest", [3, 0, 0]),
  },
  {
    file: "pytest/subtestfail.q.log",
    tool: "pytest",
    files: subtests(true),
    cmd: `${PY} -q`,
    // pytest 9 counts the failed subtest (i=1) as failed and its unittest case as passed: `1 failed, 3 passed`.
    expect: expect(1, "TEST_FAILURE", "pytest", [3, 1, 0], ["TestSquares::test_squares (i=1)"]),
  },
  {
    file: "pytest/exitfirst.q.log",
    tool: "pytest",
    files: failing,
    cmd: `${PY} -q -x`,
    expect: expect(1, "TEST_FAILURE", "pytest", [0, 1, 0], ["TestStrings::test_concatenates"]),
  },
  {
    file: "pytest/fail.ra.log",
    tool: "pytest",
    files: failing,
    cmd: `${PY} -q -rA`,
    expect: expect(
      1,
      "TEST_FAILURE",
      "pytest",
      [3, 2, 0],
      ["TestStrings::test_concatenates", "test_throws_on_bad_input"],
    ),
  },
  {
    file: "pytest/fail.tbline.log",
    tool: "pytest",
    files: failing,
    cmd: `${PY} -q --tb=line`,
    expect: expect(
      1,
      "TEST_FAILURE",
      "pytest",
      [3, 2, 0],
      ["TestStrings::test_concatenates", "test_throws_on_bad_input"],
    ),
  },
  {
    file: "pytest/xfail.q.log",
    tool: "pytest",
    files: xfails,
    cmd: `${PY} -q`,
    expect: expect(0, "PASS", "pytest", [3, 0, 2]),
  },
  {
    file: "pytest/xfail.ra.log",
    tool: "pytest",
    files: xfails,
    cmd: `${PY} -rA`,
    expect: expect(0, "PASS", "pytest", [3, 0, 2]),
  },
  {
    file: "pytest/collecterr.q.log",
    tool: "pytest",
    files: collectErr,
    cmd: `${PY} -q`,
    expect: expect(2, "BUILD_ERROR", "pytest", [0, 1, 0], ["tests/test_missing.py"]),
  },
  {
    file: "pytest/collecterr.default.log",
    tool: "pytest",
    files: collectErr,
    cmd: PY,
    expect: expect(2, "BUILD_ERROR", "pytest", [0, 1, 0], ["tests/test_missing.py"]),
  },
  {
    file: "pytest/xdist.q.log",
    tool: "pytest-debian",
    files: coverable,
    cmd: `${DEB} -q -n 2`,
    expect: expect(0, "PASS", "pytest", [4, 0, 0]),
  },
  {
    file: "pytest/xdist.default.log",
    tool: "pytest-debian",
    files: coverable,
    cmd: `${DEB} -n 2`,
    expect: expect(0, "PASS", "pytest", [4, 0, 0]),
  },
  {
    file: "pytest/xdistfail.q.log",
    tool: "pytest-debian",
    files: failing,
    cmd: `${DEB} -q -n 2`,
    expect: expect(
      1,
      "TEST_FAILURE",
      "pytest",
      [3, 2, 0],
      ["TestStrings::test_concatenates", "test_throws_on_bad_input"],
    ),
  },
  {
    file: "pytest/cov.q.log",
    tool: "pytest-debian",
    files: coverable,
    cmd: `${DEB} -q --cov=calc --cov-report=term-missing`,
    expect: expect(0, "PASS", "pytest", [4, 0, 0]),
  },
  {
    file: "pytest/cov.default.log",
    tool: "pytest-debian",
    files: coverable,
    cmd: `${DEB} --cov=calc`,
    expect: expect(0, "PASS", "pytest", [4, 0, 0]),
  },
  {
    file: "pytest/subtests.debian-q.log",
    tool: "pytest-debian-subtests",
    files: pluginSubtests(false),
    cmd: `${DEB} -q`,
    expect: expect(0, "PASS", "pytest", [3, 0, 0]),
  },
  {
    file: "pytest/subtestfail.debian-q.log",
    tool: "pytest-debian-subtests",
    files: pluginSubtests(true),
    cmd: `${DEB} -q`,
    // pytest-subtests 0.9 counts the failed subtest as failed: `1 failed, 3 passed, 2 subtests passed`.
    expect: expect(1, "TEST_FAILURE", "pytest", [3, 1, 0], ["TestSquares::test_squares"]),
  },
  {
    file: "pytest/rerun.q.log",
    tool: "pytest-debian",
    files: flaky(false),
    cmd: `${DEB} -q --reruns 2`,
    expect: expect(0, "PASS", "pytest", [4, 0, 0]),
  },
  {
    file: "pytest/rerunfail.q.log",
    tool: "pytest-debian",
    files: flaky(true),
    cmd: `${DEB} -q --reruns 2`,
    expect: expect(1, "TEST_FAILURE", "pytest", [3, 1, 0], ["test_flaky"]),
  },
];
