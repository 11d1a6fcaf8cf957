import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { secretValues } from "../../src/util/secrets.js";
import { testEnvironment } from "../../src/verification/env.js";

const base: NodeJS.ProcessEnv = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/me",
  LANG: "C.UTF-8",
  OPENAI_API_KEY: "sk-openai-123",
  anthropic_api_key: "sk-ant-lower",
  GITHUB_TOKEN: "ghp_abcdef",
  Npm_Token: "npm_xyz1",
  AWS_SECRET: "aws-secret-value",
  DB_PASSWORD: "hunter22",
  mysql_password_file: "/run/secrets/pw",
  PGPASSWORD: "pg-pass",
  MY_SERVICE_CREDENTIAL: "cred-value",
  CUSTOM: "custom-value",
  SHORT_TOKEN: "abc",
  EMPTY_KEY: "",
  KEYBOARD: "us",
  TOKENIZER: "bpe",
  SECRETARY: "alice",
  KEY: "bare",
  UNDEFINED_ONE: undefined,
};

describe("testEnvironment", () => {
  test("drops secret-looking names in any case, and the named ones, and keeps the rest as is", () => {
    const env = testEnvironment(base, ["MY_SERVICE_CREDENTIAL", "custom"]);
    assert.deepEqual(env, {
      PATH: "/usr/bin:/bin",
      HOME: "/home/me",
      LANG: "C.UTF-8",
      KEYBOARD: "us",
      TOKENIZER: "bpe",
      SECRETARY: "alice",
      KEY: "bare",
    });
  });

  test("returns a copy and adds nothing", () => {
    const env = testEnvironment(base, []);
    assert.notEqual(env, base);
    env.PATH = "changed";
    assert.equal(base.PATH, "/usr/bin:/bin");
    assert.equal(env.CI, undefined);
    for (const name of Object.keys(env)) assert.ok(name in base);
    assert.equal("UNDEFINED_ONE" in env, false);
  });

  test("an empty environment stays empty", () => {
    assert.deepEqual(testEnvironment({}, ["X"]), {});
  });
});

describe("secretValues", () => {
  test("the values of exactly the stripped variables, non-empty, at least 4 long, longest first", () => {
    const values = secretValues(base, ["MY_SERVICE_CREDENTIAL"]);
    assert.deepEqual(values, [
      "aws-secret-value",
      "/run/secrets/pw",
      "sk-openai-123",
      "sk-ant-lower",
      "cred-value",
      "ghp_abcdef",
      "hunter22",
      "npm_xyz1",
      "pg-pass",
    ]);
    assert.equal(values.includes("abc"), false, "too short to redact safely");
    assert.equal(values.includes("custom-value"), false, "not stripped");
  });

  test("a value shared by two variables appears once", () => {
    assert.deepEqual(secretValues({ A_TOKEN: "same-value", B_KEY: "same-value" }, []), ["same-value"]);
  });

  test("agrees with testEnvironment about what is a secret", () => {
    const strip = ["CUSTOM"];
    const kept = new Set(Object.values(testEnvironment(base, strip)));
    for (const value of secretValues(base, strip)) assert.equal(kept.has(value), false);
  });
});
