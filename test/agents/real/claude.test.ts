import { realCliSuite } from "./suite.js";

// Claude Code retries a 529 itself; its tokens come from modelUsage, every call the server answered.
realCliSuite("claude", { transient: { kind: "status", status: 529, times: 1 }, exactTokens: true });
