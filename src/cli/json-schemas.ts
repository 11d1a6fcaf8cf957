import { z } from "zod";
import { AnswerBodySchema } from "../config/answer-body-schema.js";
import { HookPayloadSchema } from "../config/hook-payload.js";
import { ReviewAnswerSchema } from "../config/review-answer-schema.js";
import { ConfigSchema } from "../config/schema.js";
import { PrdSchema } from "../prd/story.js";

export const SCHEMA_BASE = "https://gantry.dev/schemas/";

/** The JSON Schemas committed under schemas/, generated from the zod schemas (the single source). */
export function jsonSchemas(): Record<string, object> {
  const make = (name: string, schema: z.ZodType) => ({
    ...z.toJSONSchema(schema, { io: "input", target: "draft-2020-12" }),
    $id: `${SCHEMA_BASE}${name}.schema.json`,
  });
  return {
    config: make("config", ConfigSchema),
    prd: make("prd", PrdSchema),
    "hook-payload": make("hook-payload", HookPayloadSchema),
    "review-answer": make("review-answer", ReviewAnswerSchema),
    "serve/answer": make("serve/answer", AnswerBodySchema),
  };
}
