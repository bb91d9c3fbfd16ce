/**
 * Every documented leaf of the configuration schema, read off the schema itself: its dotted key,
 * meaning, environment variable, value type and default. The environment overrides (envOverrides.ts),
 * the README's configuration tables (`npm run docs:config`) and the default.yaml test derive from it,
 * so a key is declared once.
 */
import type { z } from "zod";
import { configSchema } from "./schema.js";
import type { FieldDoc } from "./schemaParts.js";

export type FieldKind = "string" | "number" | "boolean" | "enum" | "list" | "map" | "object";

export interface ConfigField extends FieldDoc {
  /** Dotted key, e.g. `venue.base_url`. */
  key: string;
  kind: FieldKind;
}

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  out?: z.ZodType;
}

const def = (t: z.ZodType): Def => (t as unknown as { _zod: { def: Def } })._zod.def;

function kindOf(t: z.ZodType): FieldKind {
  const d = def(t);
  switch (d.type) {
    case "default":
    case "optional":
    case "nullable":
      return kindOf(d.innerType as z.ZodType);
    case "pipe":
      return kindOf(d.out as z.ZodType);
    case "string":
    case "number":
    case "boolean":
    case "enum":
      return d.type;
    case "array":
      return "list";
    case "record":
      return "map";
    default:
      return "object";
  }
}

function walk(t: z.ZodType, path: string[], out: ConfigField[]): void {
  const meta = t.meta?.() as FieldDoc | undefined;
  if (meta?.description !== undefined) {
    out.push({ key: path.join("."), description: meta.description, ...(meta.env !== undefined ? { env: meta.env } : {}), kind: kindOf(t) });
    return;
  }
  const d = def(t);
  if (d.type === "object" && d.shape !== undefined) for (const [k, v] of Object.entries(d.shape)) walk(v, [...path, k], out);
  else if (d.type === "pipe") walk(d.out as z.ZodType, path, out);
  else if (d.innerType !== undefined) walk(d.innerType, path, out);
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
