import { realCliSuite } from "./suite.js";

// Gemini CLI retries a 429 itself (retryWithBackoff).
realCliSuite("gemini", { transient: { kind: "status", status: 429, times: 1 }, exactTokens: false });
