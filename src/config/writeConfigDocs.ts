/** `npm run docs:config`: rewrites the README's configuration tables from the schema (configDocs.ts). */
import { readFileSync, writeFileSync } from "node:fs";
import { withConfigTables } from "./configDocs.js";

const path = new URL("../../README.md", import.meta.url);
const before = readFileSync(path, "utf8");
const after = withConfigTables(before);
if (after !== before) writeFileSync(path, after);
process.stdout.write(after === before ? "README.md configuration tables are up to date\n" : "README.md configuration tables rewritten\n");
