/**
 * A stand-in for the registry's `node` image, which cannot be pulled where the tests run: Debian
 * (`debootstrap --variant=minbase`, the host's own suite, so the host's `node` binary finds the same
 * libc) with this machine's `node` and `npm` in /usr/local, a `node` user (uid 1000), and the host's
 * CA bundle (the image's ENV sets NODE_EXTRA_CA_CERTS to it: without it `npm ci` inside the build
 * fails on a certificate chain the host trusts). The root filesystem is kept as a tar in a cache
 * folder keyed by node, npm, suite and CA bundle, so only a cold run pays for debootstrap.
 * Needs root. Not a test file itself.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, rename, rm, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { removeUnmounted } from "./mounts.js";

const run = promisify(execFile);

/** Changes when what goes into the base does, so a cached base from an older recipe is not reused. */
const RECIPE = "r2";

/** Where the CA bundle sits in the base; NODE_EXTRA_CA_CERTS names it. */
export const BASE_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

export interface NodeBase {
  /** The root filesystem as a tar, for `podman import`. */
  tar: string;
  /** Short key naming this base (node version, npm version, suite, CA bundle). */
  key: string;
  /** Whether this call made it (false: taken from the cache). */
  made: boolean;
}

/** The host's CA bundle: what NODE_EXTRA_CA_CERTS names, else Debian's. */
function hostCaBundle(): string {
  const named = process.env.NODE_EXTRA_CA_CERTS;
  return named !== undefined && named !== "" && existsSync(named) ? named : BASE_CA_BUNDLE;
}

/** The host's Debian suite (bookworm, trixie, …) from /etc/os-release. */
export function hostSuite(): string | undefined {
  if (!existsSync("/etc/os-release")) return undefined;
  return /^VERSION_CODENAME=(\S+)$/m.exec(readFileSync("/etc/os-release", "utf8"))?.[1];
}

/** The folder of the npm package the host's `npm` runs (…/node_modules/npm). */
async function hostNpmDir(): Promise<{ dir: string; version: string }> {
  const { stdout } = await run("sh", ["-c", "command -v npm"]);
  const cli = realpathSync(stdout.trim());
  const dir = dirname(dirname(cli));
  const version = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
  return { dir, version };
}

/** The cached base for this host, made first if missing. */
export async function nodeBaseImage(cacheDir: string, signal?: AbortSignal): Promise<NodeBase> {
  const suite = hostSuite();
  if (suite === undefined) throw new Error("no VERSION_CODENAME in /etc/os-release: not a Debian host");
  const npm = await hostNpmDir();
  const ca = createHash("sha256").update(readFileSync(hostCaBundle())).digest("hex").slice(0, 12);
  const key = `${RECIPE}-${suite}-node${process.versions.node}-npm${npm.version}-ca${ca}`;
  const tar = join(cacheDir, `node-base-${key}.tar`);
  if (existsSync(tar)) return { tar, key, made: false };

  await mkdir(cacheDir, { recursive: true });
  const work = await mkdtemp(join(cacheDir, "make-"));
  try {
    const root = join(work, "root");
    // debootstrap mounts /proc and /sys in the target while it installs: removeUnmounted (finally)
    // takes down whatever a failed run leaves before it deletes anything.
    await run("debootstrap", ["--variant=minbase", suite, root, "http://deb.debian.org/debian"], {
      signal,
      maxBuffer: 64 * 1024 * 1024,
    });
    await cp(process.execPath, join(root, "usr/local/bin/node"));
    await mkdir(join(root, "usr/local/lib/node_modules"), { recursive: true });
    await cp(npm.dir, join(root, "usr/local/lib/node_modules/npm"), { recursive: true, verbatimSymlinks: true });
    await symlink("../lib/node_modules/npm/bin/npm-cli.js", join(root, "usr/local/bin/npm"));
    await symlink("../lib/node_modules/npm/bin/npx-cli.js", join(root, "usr/local/bin/npx"));
    // As the registry's image has it: user and group `node`, 1000.
    await run("chroot", [root, "groupadd", "--gid", "1000", "node"], { signal });
    await run("chroot", [root, "useradd", "--uid", "1000", "--gid", "node", "--shell", "/bin/bash", "--create-home", "node"], {
      signal,
    });
    await mkdir(join(root, dirname(BASE_CA_BUNDLE)), { recursive: true });
    await cp(hostCaBundle(), join(root, BASE_CA_BUNDLE));
    // debootstrap leaves the .debs it installed; nothing in the build needs apt or translations.
    for (const junk of ["var/cache/apt", "var/lib/apt/lists", "usr/share/doc", "usr/share/man", "usr/share/locale"]) {
      await rm(join(root, junk), { recursive: true, force: true });
    }
    await run("chroot", [root, "node", "--version"], { signal });
    const partial = join(work, "base.tar");
    await run("tar", ["-C", root, "-cf", partial, "."], { signal });
    // A rename, so a run that dies half way never leaves a truncated tar under the cache's name.
    await rename(partial, tar);
    // One base per cache: older keys (a previous node, npm or recipe) are dropped.
    for (const f of await readdir(cacheDir)) {
      if (f.startsWith("node-base-") && f.endsWith(".tar") && join(cacheDir, f) !== tar) await rm(join(cacheDir, f), { force: true });
    }
    return { tar, key, made: true };
  } finally {
    await removeUnmounted(work);
  }
}
