/**
 * Every documented leaf of the configuration schema, read off the schema itself: its dotted key,
 * meaning, environment variable, value type and default. The environment overrides (envOverrides.ts),
 * the README's configuration tables (`npm run docs:config`) and the default.yaml test derive from it,
 * so a key is declared once.
 */
import { z } from "zod";
import { configSchema } from "./schema.js";
import type { FieldDoc } from "./schemaParts.js";

type FieldKind = "string" | "number" | "boolean" | "enum" | "list" | "map" | "object";

export interface ConfigField extends FieldDoc {
  /** Dotted key, e.g. `venue.base_url`. */
  key: string;
  kind: FieldKind;
}

/** What a wrapper (default, optional, nullable, ...) or a pipe (preprocess, transform) stands for; undefined for any other schema. */
function inner(t: z.ZodType): z.ZodType | undefined {
  if (
    t instanceof z.ZodDefault ||
    t instanceof z.ZodOptional ||
    t instanceof z.ZodNullable ||
    t instanceof z.ZodPrefault ||
    t instanceof z.ZodCatch ||
    t instanceof z.ZodReadonly
  )
    return t.unwrap() as z.ZodType;
  if (t instanceof z.ZodPipe) return t.out as z.ZodType;
  return undefined;
}

function kindOf(t: z.ZodType): FieldKind {
  const wrapped = inner(t);
  if (wrapped !== undefined) return kindOf(wrapped);
  if (t instanceof z.ZodString) return "string";
  if (t instanceof z.ZodNumber) return "number";
  if (t instanceof z.ZodBoolean) return "boolean";
  if (t instanceof z.ZodEnum) return "enum";
  if (t instanceof z.ZodArray) return "list";
  if (t instanceof z.ZodRecord) return "map";
  return "object";
}

function walk(t: z.ZodType, path: string[], out: ConfigField[]): void {
  const meta = t.meta?.() as FieldDoc | undefined;
  if (meta?.description !== undefined) {
    out.push({ key: path.join("."), description: meta.description, ...(meta.env !== undefined ? { env: meta.env } : {}), kind: kindOf(t) });
    return;
  }
  const wrapped = inner(t);
  if (t instanceof z.ZodObject) for (const [k, v] of Object.entries(t.shape)) walk(v as z.ZodType, [...path, k], out);
  else if (wrapped !== undefined) walk(wrapped, path, out);
  else throw new Error(`config key ${path.join(".")} is not documented (schemaParts.ts doc)`);
}

let cached: readonly ConfigField[] | undefined;

export function configFields(): readonly ConfigField[] {
  if (cached === undefined) {
    const out: ConfigField[] = [];
    walk(configSchema, [], out);
    cached = out;
  }
  return cached;
}
