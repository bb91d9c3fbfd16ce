/**
 * Turns validation findings into the one ConfigError an operator reads: every problem on its own
 * line, each naming the key (or environment variable) and what is expected there. Received values
 * are echoed only when they are numbers or booleans: a string could be a misplaced secret.
 */
import type { z } from "zod";
import { ConfigError } from "../errors.js";
import { ALLOWED_KEYS_MARK, unknownKeyProblem } from "./schema.js";

export interface Problem {
  /** Dotted config path (`policy.per_symbol.PERP_BTC_USDC.min_fee`), env variable, or file path. */
  key: string;
  problem: string;
}

/** `["policy","symbols","allow",2]` → `policy.symbols.allow[2]`. */
function dottedPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "(top level)" : out;
}

const TYPE_NAMES: Record<string, string> = {
  number: "a number",
  int: "an integer",
  string: "a string",
  boolean: "true or false",
  object: "a mapping",
  array: "a list",
};

function received(input: unknown): string {
  if (typeof input === "number" || typeof input === "boolean") return ` (got ${String(input)})`;
  return "";
}

function describeType(input: unknown): string {
  if (input === null) return "null";
  if (input === undefined) return "nothing";
  if (Array.isArray(input)) return "a list";
  if (typeof input === "object") return "a mapping";
  if (typeof input === "number" && !Number.isFinite(input)) return String(input);
  return `a ${typeof input}${received(input)}`;
}

function bound(issue: { minimum?: unknown; maximum?: unknown; inclusive?: boolean }, kind: "min" | "max"): string {
  const value = kind === "min" ? issue.minimum : issue.maximum;
  const op = kind === "min" ? (issue.inclusive === false ? ">" : ">=") : issue.inclusive === false ? "<" : "<=";
  return `${op} ${String(value)}`;
}

/** One problem per zod issue (and one per key of an unknown-keys issue). */
export function problemsFromZod(issues: readonly z.core.$ZodIssue[]): Problem[] {
  const problems: Problem[] = [];
  for (const issue of issues) {
    const key = dottedPath(issue.path);
    switch (issue.code) {
      case "unrecognized_keys": {
        const allowed = issue.message.startsWith(ALLOWED_KEYS_MARK)
          ? issue.message
              .slice(ALLOWED_KEYS_MARK.length)
              .split(",")
              .filter((k) => k !== "")
          : [];
        for (const k of issue.keys) {
          problems.push({ key: issue.path.length === 0 ? k : `${key}.${k}`, problem: unknownKeyProblem(k, allowed) });
        }
        break;
      }
      case "invalid_type": {
        const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
        problems.push({ key, problem: `expected ${expected}, got ${describeType(issue.input)}` });
        break;
      }
      case "too_small":
        problems.push({
          key,
          problem:
            issue.origin === "string" && Number(issue.minimum) === 1
              ? "must not be empty"
              : `must be ${bound(issue, "min")}${received(issue.input)}`,
        });
        break;
      case "too_big":
        problems.push({ key, problem: `must be ${bound(issue, "max")}${received(issue.input)}` });
        break;
      case "invalid_value":
        problems.push({ key, problem: `must be one of: ${issue.values.map(String).join(", ")}` });
        break;
      case "invalid_key": {
        // A per_symbol key that is not a symbol: the inner issue carries the schema's message.
        const inner = issue.issues[0]?.message ?? issue.message;
        problems.push({ key, problem: `key ${inner}` });
        break;
      }
      default:
        problems.push({ key, problem: issue.message });
    }
  }
  return problems;
}

/** One ConfigError for all problems: `.key` is the first one's, the message lists every one. */
export function configErrorFrom(problems: readonly Problem[]): ConfigError {
  const [first, ...rest] = problems;
  if (first === undefined) return new ConfigError("(top level)", "invalid configuration");
  const more = rest.map((p) => `\nconfig ${p.key}: ${p.problem}`).join("");
  return new ConfigError(first.key, `${first.problem}${more}`);
}
