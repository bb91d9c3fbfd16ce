/**
 * The built-in configuration, for tests: what an empty or absent config file means. The schema's
 * own defaults (src/config/schema.ts), nothing chosen here.
 */
import { type Config, configSchema } from "../../src/config/schema.js";

export function defaultConfig(): Config {
  return configSchema.parse({});
}
