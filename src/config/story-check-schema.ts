import { z } from "zod";

/** The between-stories checks (`quality.commands.build|smoke|demo`): the app still builds, runs and shows. */
export const STORY_CHECKS = ["build", "smoke", "demo"] as const;
export type StoryCheckName = (typeof STORY_CHECKS)[number];

const pattern = z
  .string()
  .min(1)
  .max(1000)
  .refine(
    (source) => {
      try {
        new RegExp(source);
        return true;
      } catch {
        return false;
      }
    },
    { message: "expected a JavaScript regular expression" },
  );

/**
 * A command, or a command with the output it must print. With `expect`, the check passes as soon as the
 * output matches (a server need not exit: its process group is killed then); without it, on exit code 0.
 */
export const AppCheckSchema = z.union([
  z.string().min(1),
  z.strictObject({
    run: z.string().min(1).describe("run through /bin/sh -c in a checkout of the tree being judged"),
    expect: pattern.optional().describe('a regular expression the output must match, e.g. "listening on"'),
    timeoutSeconds: z.number().positive().max(3600).optional().describe("default quality.timeoutSeconds"),
  }),
]);
export type AppCheck = z.output<typeof AppCheckSchema>;
