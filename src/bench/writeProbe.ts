/**
 * How long a client takes from a `liquidation` frame's bytes reaching JavaScript to its claim's
 * `socket.write`, per frame: loaded into the daemon and the floor with
 * `npm run bench -- --phases latency --sparse 0 --node-args="--import=$PWD/dist/bench/writeProbe.js"`
 * (an absolute path: the daemon runs in a directory of its own),
 * it appends one µs figure per claim to `<tmpdir>/liquidator-write-probe/<daemon|floor>-<pid>.txt`.
 * `node dist/bench/writeProbe.js` then prints the percentiles per file. A measuring tool only:
 * it wraps `net.Socket` methods, so it costs both clients a little, alike.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const DIR = join(tmpdir(), "liquidator-write-probe");
const FRAME = '"topic":"liquidation"';
const CLAIM = "POST /v1/liquidation";

function install(): void {
  mkdirSync(DIR, { recursive: true });
  const out = join(DIR, `${process.argv[1]?.includes("floorClient") ? "floor" : "daemon"}-${process.pid}.txt`);
  let arrived = 0;
  let rows: string[] = [];
  const emit = net.Socket.prototype.emit;
  net.Socket.prototype.emit = function (this: net.Socket, event: string | symbol, ...args: unknown[]): boolean {
    const chunk = args[0];
    if (event === "data" && Buffer.isBuffer(chunk) && chunk.length < 4_096 && chunk.includes(FRAME)) arrived = performance.now();
    return (emit as (...a: unknown[]) => boolean).call(this, event, ...args);
  } as typeof emit;
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (this: net.Socket, data: unknown, ...rest: unknown[]): boolean {
    if (
      arrived !== 0 &&
      (typeof data === "string" ? data.startsWith(CLAIM) : Buffer.isBuffer(data) && data.subarray(0, 20).toString() === CLAIM)
    ) {
      rows.push(((performance.now() - arrived) * 1_000).toFixed(0));
      arrived = 0;
      if (rows.length >= 50) {
        const text = `${rows.join("\n")}\n`;
        rows = [];
        setImmediate(() => appendFileSync(out, text)); // after the claim's handler, not in it
      }
    }
    return (write as (...a: unknown[]) => boolean).call(this, data, ...rest);
  } as typeof write;
}

function summary(): void {
  for (const file of readdirSync(DIR).sort()) {
    const xs = readFileSync(join(DIR, file), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map(Number)
      .sort((a, b) => a - b);
    const at = (q: number): number => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? Number.NaN;
    process.stdout.write(`${file}: n=${xs.length} frame→write µs p10 ${at(0.1)} p50 ${at(0.5)} p90 ${at(0.9)}\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) summary();
else install();
