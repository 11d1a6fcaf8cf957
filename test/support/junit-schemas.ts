import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url).pathname;
/** The JUnit format as Jenkins and GitLab read it: `<testsuites>` and everything in it. */
export const JUNIT_XSD = fixture("junit.xsd");
/** Surefire 3.0's report format: one `<testsuite>`. */
export const SUREFIRE_XSD = fixture("surefire-3.0.xsd");

/** Why the checks cannot run here, or false. */
export const noXmllint = spawnSync("xmllint", ["--version"]).error
  ? "xmllint is not installed (Debian package libxml2-utils)"
  : false;

export function validate(file: string, xsd = JUNIT_XSD): { ok: boolean; output: string } {
  const r = spawnSync("xmllint", ["--noout", "--schema", xsd, file], { encoding: "utf8" });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

export const xpath = (file: string, expr: string): string =>
  execFileSync("xmllint", ["--xpath", expr, file], { encoding: "utf8" }).trim();

/** Each `<testsuite>` of a junit.xml, as a document of its own, checked against Surefire's schema. */
export function validateEachSuite(file: string): { ok: boolean; output: string; suites: number } {
  const suites = Number(xpath(file, "count(/testsuites/testsuite)"));
  const dir = mkdtempSync(join(tmpdir(), "gantry-surefire-"));
  try {
    let output = "";
    for (let i = 1; i <= suites; i++) {
      const one = join(dir, `suite-${i}.xml`);
      writeFileSync(
        one,
        `<?xml version="1.0" encoding="UTF-8"?>\n${xpath(file, `/testsuites/testsuite[${i}]`)}\n`,
      );
      const result = validate(one, SUREFIRE_XSD);
      if (!result.ok) output += `suite ${i}: ${result.output}`;
    }
    return { ok: output === "", output, suites };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
