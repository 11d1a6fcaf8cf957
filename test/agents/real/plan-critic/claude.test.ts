import { planCriticSuite } from "./suite.js";

planCriticSuite("claude");
