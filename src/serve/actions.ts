import { randomUUID } from "node:crypto";
import { existsSync, linkSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requestFile, responseFile } from "../interaction/channels/file.js";
import { CONTROL_DIR } from "../subscribers/serve-control.js";
import { writeJsonAtomic } from "../util/atomic-write.js";
import type { RunHub } from "./hub.js";
import { runDir } from "./run-files.js";

/** What a route answers: an HTTP status, a stable code for clients and tests, and one line for people. */
export interface Outcome {
  status: number;
  code: string;
  message: string;
}

const ok = (message: string): Outcome => ({ status: 200, code: "ok", message });

/**
 * Answers a live run's pending question with one of the options it offered. The answer is written once
 * (a hard link never replaces an existing file): of two answers at the same moment exactly one wins, and
 * the run's broker takes it as the serve (or file) channel's reply. Anything refused writes nothing.
 */
export function answerRequest(
  hub: RunHub,
  root: string,
  runId: string,
  body: { requestId: string; action: string },
  by: string,
): Outcome {
  const watcher = hub.watcher(runId);
  if (!watcher) return { status: 404, code: "unknown-run", message: `no run ${runId}` };
  // A question asked since the last poll is read now (from the events appended since; state.json and the
  // run's liveness wait for the poll); one already known needs no read.
  if (!watcher.pendingRequest(body.requestId)) watcher.readEvents();
  const request = watcher.pendingRequest(body.requestId);
  if (!request || !watcher.stillLive())
    return { status: 404, code: "no-pending-request", message: "no such question is waiting in this run" };
  if (request.expiresAt && Date.parse(request.expiresAt) < Date.now())
    return { status: 409, code: "expired", message: "the question's time is up; the run took its fallback" };
  if (!request.options.includes(body.action))
    return {
      status: 422,
      code: "option-not-offered",
      message: `expected one of ${request.options.join(", ")}`,
    };
  const dir = join(runDir(root, runId), "interaction");
  if (!existsSync(requestFile(dir, request.id)))
    return {
      status: 409,
      code: "not-answerable-here",
      message: "the run asks through a channel gantry serve cannot answer (set interaction.channel to serve)",
    };
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `.${request.id}.${randomUUID()}.answer`);
  writeFileSync(temp, `${JSON.stringify({ action: body.action, respondedBy: by })}\n`, { mode: 0o600 });
  try {
    linkSync(temp, responseFile(dir, request.id));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST")
      return { status: 409, code: "already-answered", message: "this question has been answered" };
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
  return ok(`answered ${request.trigger}: ${body.action}`);
}

/** Leaves a control for a live run, taken by its serve-control subscriber (recorded as `run:control`). */
export function sendControl(
  hub: RunHub,
  root: string,
  runId: string,
  body: { action: string; storyId?: string },
  by: string,
): Outcome {
  const view = hub.view(runId);
  if (!view) return { status: 404, code: "unknown-run", message: `no run ${runId}` };
  if (!view.live) return { status: 409, code: "run-not-live", message: `run ${runId} is not running` };
  if (body.action === "skip") {
    const story = view.stories.find((s) => s.id === body.storyId);
    if (!story)
      return { status: 404, code: "unknown-story", message: `no story ${body.storyId} in this run` };
    if (story.status !== "pending")
      return {
        status: 409,
        code: "story-not-pending",
        message: `${story.id} is ${story.status}; only a story not started yet can be skipped (abort stops the one in flight)`,
      };
  }
  const dir = join(runDir(root, runId), CONTROL_DIR);
  mkdirSync(dir, { recursive: true });
  const name = `${Date.now().toString().padStart(15, "0")}-${randomUUID()}.json`;
  writeJsonAtomic(join(dir, name), { ...body, by });
  return ok(`${body.action} sent`);
}
