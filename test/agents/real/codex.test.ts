import { realCliSuite } from "./suite.js";

// Codex retries a dropped connection itself (stream_max_retries); its usage covers every call of the turn.
realCliSuite("codex", { transient: { kind: "drop", times: 1 }, exactTokens: true });
