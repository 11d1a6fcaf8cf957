// Every variant the capture script knows, by runner.
import { jsVariants } from "./js.mjs";
import { nativeVariants } from "./native.mjs";
import { pytestVariants } from "./pytest.mjs";

export const variants = [...pytestVariants, ...jsVariants, ...nativeVariants];
