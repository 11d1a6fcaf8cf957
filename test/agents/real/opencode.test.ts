import { realCliSuite } from "./suite.js";

// OpenCode retries a 500 itself; its title call is not in its step tokens. gantry turns its snapshots off.
realCliSuite("opencode", {
  transient: { kind: "status", status: 500, times: 1 },
  exactTokens: false,
  notWritten: [".local/share/opencode/snapshot"],
});
