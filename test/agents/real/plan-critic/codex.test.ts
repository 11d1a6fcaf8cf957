import { planCriticSuite } from "./suite.js";

planCriticSuite("codex");
