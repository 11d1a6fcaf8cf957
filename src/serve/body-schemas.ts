import { readFileSync } from "node:fs";
import type { ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import { packageFile } from "../util/package-file.js";

/** The request bodies the server accepts, as JSON Schemas committed under schemas/serve/. */
export const BODY_SCHEMAS = ["answer", "control"] as const;
export type BodySchema = (typeof BODY_SCHEMAS)[number];

export type BodyValidators = Record<BodySchema, (body: unknown) => string | undefined>;

export const bodySchemaFile = (name: BodySchema) => packageFile(`schemas/serve/${name}.schema.json`);

/**
 * Compiles each schema once; a validator returns undefined for a valid body, else one line saying what is
 * wrong. The schemas are the project's own files, checked against the 2020-12 meta-schema by
 * test/serve/body-schemas.test.ts; checking them again at every start costs the server half a second of CPU.
 */
export function loadBodyValidators(): BodyValidators {
  const ajv = new Ajv2020.default({ strict: true, strictRequired: false, validateSchema: false });
  const compile = (name: BodySchema) => {
    const validate: ValidateFunction = ajv.compile(JSON.parse(readFileSync(bodySchemaFile(name), "utf8")));
    return (body: unknown) => {
      if (validate(body)) return undefined;
      const error = validate.errors?.[0];
      const where = error?.instancePath || "body";
      const extra =
        error?.params && "additionalProperty" in error.params ? ` (${error.params.additionalProperty})` : "";
      return `${where}: ${error?.message ?? "invalid"}${extra}`;
    };
  };
  return { answer: compile("answer"), control: compile("control") };
}
