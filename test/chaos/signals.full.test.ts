import { describe, it } from "node:test";
import { SIGNAL_CASES } from "./signals.harness.js";

/** The other two pairs of signal and phase (signals.test.ts has SIGINT in a session, SIGTERM in a test run). */
describe("Ctrl-C and SIGTERM, the other pairs", { concurrency: 2 }, () => {
  it("SIGTERM during an agent session: exit 130 within 5 s, nothing left running, story paused, hook ran; resume finishes", () =>
    SIGNAL_CASES.agentSession("SIGTERM"));

  it("SIGINT during a test run: exit 130 within 5 s, the test processes are gone, story paused; resume finishes", () =>
    SIGNAL_CASES.testRun("SIGINT"));
});
