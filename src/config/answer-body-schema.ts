import { z } from "zod";
import { TRIGGERS } from "./interaction-schema.js";

/**
 * Every option any trigger offers, in the order the triggers list them: what an answer may name. The
 * triggers' option lists are the one source; schemas/serve/answer.schema.json is generated from this.
 */
export const ANSWER_ACTIONS = [...new Set(Object.values(TRIGGERS).flatMap((t) => t.actions))] as [
  (typeof TRIGGERS)[keyof typeof TRIGGERS]["actions"][number],
  ...(typeof TRIGGERS)[keyof typeof TRIGGERS]["actions"][number][],
];

/** `POST /api/runs/{id}/answer` (page, `gantry devices sign`, a device): the question's id and one option. */
export const AnswerBodySchema = z
  .strictObject({
    requestId: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
    action: z.enum(ANSWER_ACTIONS),
  })
  .describe("An answer to a run's pending interaction request: the request's id and one of its options' ids");
