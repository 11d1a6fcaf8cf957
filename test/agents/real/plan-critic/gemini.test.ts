import { planCriticSuite } from "./suite.js";

planCriticSuite("gemini");
