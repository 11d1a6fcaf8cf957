import { autofixStage } from "./autofix.js";
import { completionStage } from "./completion.js";
import { executionStage } from "./execution.js";
import { rectifyStage } from "./rectify.js";
import { regressionStage } from "./regression.js";
import { reviewStage } from "./review.js";
import { routingStage } from "./routing.js";
import type { Stage } from "./stage.js";
import { verifyStage } from "./verify.js";

/** The ordered story pipeline (design section 4). */
export const STORY_STAGES: readonly Stage[] = [
  routingStage,
  executionStage,
  verifyStage,
  rectifyStage,
  reviewStage,
  autofixStage,
  regressionStage,
  completionStage,
];
