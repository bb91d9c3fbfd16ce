/**
 * Runs a Dockerfile's own instructions without a Docker engine: each stage gets a root folder
 * standing for the image's filesystem, COPY copies from the build context (or another stage's root),
 * RUN runs through `sh -c` with the stage's ENV and its absolute paths moved under the root, ENV and
 * ARG are tracked. An instruction this runner does not know is an error, so the test fails when the
 * Dockerfile changes in a way it was not taught. Not a test file itself.
 */
import { spawnSync } from "node:child_process";
import { cp, mkdir } from "node:fs/promises";
import { join } from "node:path";

export interface Instruction {
  op: string;
  args: string;
}

/** Instructions with line continuations joined and comments dropped. */
export function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    if (pending === "" && (raw.trim() === "" || raw.trimStart().startsWith("#"))) continue;
    if (raw.endsWith("\\")) {
      pending += `${raw.slice(0, -1).trim()} `;
      continue;
    }
    const line = (pending + raw.trim()).trim();
    pending = "";
    const m = /^([A-Z]+)\s+(.*)$/.exec(line);
    if (m === null) throw new Error(`cannot parse Dockerfile line: ${line}`);
    out.push({ op: m[1] ?? "", args: m[2] ?? "" });
  }
  return out;
}

export interface Stage {
  name: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string | undefined;
  healthcheck: string[] | undefined;
  entrypoint: string[];
  cmd: string[];
}

export interface RunOptions {
  context: string;
  /** Where the stages' roots are made. */
  dir: string;
  /** Extra environment for RUN (e.g. npm's cache folder). */
  runEnv: Record<string, string>;
  /** `RUN` text rewrites for what only exists in the image (e.g. its `node` user). */
  rewrite?: (cmd: string) => string;
}

const ENV_PAIR = /([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S+)/g;

/** Moves absolute paths in a command or value (`/app`, `/data`) under the stage's root. */
function rooted(root: string, text: string): string {
  return text.replace(/(^|[\s=])\/(?=[A-Za-z])/g, `$1${root}/`);
}

export async function runDockerfile(text: string, o: RunOptions): Promise<Map<string, Stage>> {
  const stages = new Map<string, Stage>();
  const args: Record<string, string> = {};
  let stage: Stage | undefined;
  const expand = (s: string): string => s.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, n: string) => stage?.env[n] ?? args[n] ?? "");
  for (const { op, args: a } of parseDockerfile(text)) {
    if (op === "ARG") {
      const [name, value = ""] = a.split("=", 2);
      args[name ?? ""] = args[name ?? ""] ?? value;
    } else if (op === "FROM") {
      const name = /\bAS\s+(\S+)/i.exec(a)?.[1] ?? `stage${stages.size}`;
      const root = join(o.dir, name);
      await mkdir(root, { recursive: true });
      stage = { name, root, workdir: "/", env: {}, user: undefined, healthcheck: undefined, entrypoint: [], cmd: [] };
      stages.set(name, stage);
    } else if (stage === undefined) {
      throw new Error(`${op} before FROM`);
    } else if (op === "WORKDIR") {
      stage.workdir = a;
      await mkdir(join(stage.root, a), { recursive: true });
    } else if (op === "ENV") {
      for (const m of a.matchAll(ENV_PAIR)) stage.env[m[1] ?? ""] = rooted(stage.root, expand((m[2] ?? "").replace(/^"|"$/g, "")));
    } else if (op === "COPY") {
      const parts = a.split(/\s+/);
      const from = parts[0]?.startsWith("--from=") ? stages.get(parts.shift()?.slice(7) ?? "") : undefined;
      const dest = parts.pop() ?? "";
      const target = join(stage.root, dest.startsWith("/") ? dest : join(stage.workdir, dest));
      for (const src of parts) {
        const source = from === undefined ? join(o.context, src) : join(from.root, src);
        const into = dest.endsWith("/") ? join(target, src.split("/").pop() ?? src) : target;
        await cp(source, into, { recursive: true });
      }
    } else if (op === "RUN") {
      const cmd = rooted(stage.root, (o.rewrite ?? ((c) => c))(expand(a)));
      const r = spawnSync("sh", ["-c", cmd], {
        cwd: join(stage.root, stage.workdir),
        env: { ...process.env, ...stage.env, ...o.runEnv },
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      });
      if (r.status !== 0) throw new Error(`RUN ${a} failed (${r.status}): ${r.stdout}${r.stderr}`);
    } else if (op === "USER") {
      stage.user = a;
    } else if (op === "HEALTHCHECK") {
      const cmd = /\bCMD\s+(\[.*\])\s*$/.exec(a)?.[1];
      if (cmd === undefined) throw new Error(`HEALTHCHECK without an exec-form CMD: ${a}`);
      stage.healthcheck = JSON.parse(cmd) as string[];
    } else if (op === "ENTRYPOINT") {
      stage.entrypoint = JSON.parse(a) as string[];
    } else if (op === "CMD") {
      stage.cmd = JSON.parse(a) as string[];
    } else if (op !== "VOLUME" && op !== "EXPOSE" && op !== "STOPSIGNAL" && op !== "LABEL") {
      throw new Error(`the Dockerfile runner does not know ${op}: teach test/support/dockerfileSteps.ts`);
    }
  }
  return stages;
}
