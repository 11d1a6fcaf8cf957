import { planCriticSuite } from "./suite.js";

planCriticSuite("opencode");
