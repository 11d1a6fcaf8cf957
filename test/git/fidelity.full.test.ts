/**
 * Every kind of repository of fidelity.test.ts again, each holding 30,000 more committed files: gantry's
 * commit compared with git's where size matters (a sparse checkout's files outside the cone, a subfolder
 * project in a large repository, the index formats of a large index).
 */
process.env.GANTRY_FIDELITY_FILES = "30000";
await import("./fidelity.test.js");
