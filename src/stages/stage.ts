import type { StageName, StageResult } from "../model/stage.js";
import type { StoryContext } from "./context.js";

/** One step of a story's pass; it decides by returning an action, never by calling a subscriber. */
export interface Stage {
  name: StageName;
  enabled(ctx: StoryContext): boolean;
  execute(ctx: StoryContext): Promise<StageResult>;
}
