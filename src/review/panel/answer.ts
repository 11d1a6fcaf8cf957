import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type Ajv2020 from "ajv/dist/2020.js";
import type { ReviewAnswer } from "../../config/review-answer-schema.js";
import { packageFile } from "../../util/package-file.js";

/** The committed schema every reviewer's answer is validated against (generated from the zod source). */
export const ANSWER_SCHEMA_URL = packageFile("schemas/review-answer.schema.json");

type Validate = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string }[] | null;
};
let compiled: Validate | undefined;

function validator(): Validate {
  if (!compiled) {
    // Loaded on the first answer: importing ajv costs every run ~100 ms, and most runs have no panel.
    const { default: Ajv } = createRequire(import.meta.url)("ajv/dist/2020.js") as typeof Ajv2020;
    const ajv = new Ajv({ strict: false, allErrors: false });
    compiled = ajv.compile(JSON.parse(readFileSync(ANSWER_SCHEMA_URL, "utf8"))) as Validate;
  }
  return compiled;
}

export type ParsedAnswer = { ok: true; answer: ReviewAnswer } | { ok: false; problem: string };

/**
 * A reviewer's output as its answer: the whole output as JSON, else the last ```json block, else the last
 * line that is a JSON object. Whatever is found must fit schemas/review-answer.schema.json; anything else
 * (no output, no JSON, the wrong shape) is no answer, with the reason.
 */
export function parseAnswer(output: string): ParsedAnswer {
  if (output.trim() === "") return { ok: false, problem: "it printed nothing" };
  const candidate = jsonIn(output);
  if (candidate === undefined) return { ok: false, problem: "its output holds no JSON object" };
  const validate = validator();
  if (!validate(candidate.value)) {
    const first = validate.errors?.[0];
    const at = first?.instancePath ? first.instancePath : "the answer";
    return {
      ok: false,
      problem: `its JSON does not fit schemas/review-answer.schema.json: ${at} ${first?.message ?? "is invalid"}`,
    };
  }
  return { ok: true, answer: candidate.value as ReviewAnswer };
}

function jsonIn(output: string): { value: unknown } | undefined {
  const whole = tryJson(output.trim());
  if (whole) return whole;
  const fences = [...output.matchAll(/```json[^\n]*\n([\s\S]*?)```/g)];
  for (const fence of fences.reverse()) {
    const found = tryJson((fence[1] ?? "").trim());
    if (found) return found;
  }
  const lines = output.split("\n").map((l) => l.trim());
  for (const line of lines.reverse()) {
    if (!line.startsWith("{")) continue;
    const found = tryJson(line);
    if (found) return found;
  }
  return undefined;
}

function tryJson(text: string): { value: unknown } | undefined {
  if (!text.startsWith("{")) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}
