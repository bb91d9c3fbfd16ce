/**
 * The end of a soak: the final per-minute table (every outcome decided), the totals, the faults, the
 * missed ids with the faults they lived through, a verdict, and the JSON report.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { percentile } from "../engine/percentile.js";
import { countOutcomes, type IdOutcome } from "./soakLedger.js";
import type { DaemonSample } from "./soakMetrics.js";
import { formatCodes, markdownTable, tableHeader, tableRow } from "./soakReport.js";
import { GRACE_MS, SOAK_POLICY, type Soak } from "./soakRun.js";
import { formatUnwind } from "./soakUnwind.js";

/** Prints the summary, writes the JSON report; returns the exit status (1 on a duplicate claim or a crash). */
export function writeSummary(soak: Soak, stopExit: string): number {
  const endedAt = Date.now();
  const runEnd = soak.runEnd;
  const outcomes = soak.ledger.outcomes(endedAt, runEnd, GRACE_MS);
  const totals = countOutcomes(outcomes);
  const failedByCode = soak.ledger.failedByCode(soak.t0, Number.POSITIVE_INFINITY);
  const requests = soak.ledger.requests(soak.t0, Number.POSITIVE_INFINITY);
  const delays = outcomes.map((x) => x.claimDelayMs).filter((x): x is number => x !== undefined);
  const rows = soak.finalRows();
  const got = soak.scrapes.filter((s): s is DaemonSample => !("missing" in s));
  const rss = got.map((s) => s.rssBytes).filter((x): x is number => x !== undefined);
  const el = got.map((s) => s.eventLoopP99Ms).filter((x): x is number => x !== undefined);
  const missed = outcomes.filter((x) => x.eligible && !x.claimedByUs);
  const duplicates = outcomes.filter((x) => x.duplicate);
  const daemon = soak.daemonTotals();
  const interrupted = soak.stop.signal.aborted;
  const verdict =
    duplicates.length > 0
      ? "FAIL: duplicate claims"
      : soak.unexpectedExits.length > 0
        ? "FAIL: the daemon died by itself"
        : interrupted
          ? "interrupted"
          : "ok";

  const out = process.stdout;
  out.write(`\nfinal (every outcome decided):\n${tableHeader()}\n${rows.map(tableRow).join("\n")}\n\n`);
  out.write(
    `offered ${totals.offered}, eligible ${totals.eligible}, claimed by us ${totals.claimedByUs}, missed ${totals.missed}, competitor first ${totals.competitorFirst}, duplicate ${totals.duplicates}\n`,
  );
  out.write(`our claim requests ${requests}, refused by code: ${formatCodes(failedByCode)}\n`);
  out.write(
    `first push → our claim at the venue: p50 ${fmtMs(percentile(delays, 50))}, p99 ${fmtMs(percentile(delays, 99))}, max ${fmtMs(percentile(delays, 100))}\n`,
  );
  out.write(
    `RSS MB: first ${fmtMb(rss[0])}, last ${fmtMb(rss.at(-1))}, max ${fmtMb(rss.length ? Math.max(...rss) : undefined)}; event-loop p99 ms: median ${fmtMs(percentile(el, 50))}, worst ${fmtMs(percentile(el, 100))} (${EL_NOTE})\n`,
  );
  out.write(`daemon: ${soak.daemon.starts} starts, unexpected exits ${soak.unexpectedExits.length}, final stop: ${stopExit}\n`);
  out.write(
    `daemon counters: claims ${formatCodes(daemon.claimResults)}; bad frames ${formatCodes(daemon.badMessages)}; skipped ${formatCodes(daemon.skipped)}; reconnects ${daemon.reconnects}\n`,
  );
  out.write(formatUnwind(daemon.unwind));
  for (const f of soak.faults)
    out.write(`  fault ${fmtClock(f.atMs).padStart(5)} ${f.kind.padEnd(18)} ${f.detail}${f.error ? ` (error: ${f.error})` : ""}\n`);
  if (missed.length > 0) {
    out.write(`missed by cause: ${missedCauses(missed, (m) => soak.faultsDuring(m))}\n`);
    // Claims leave highest expected fee first at the venue's 5/s: after an outage the cheap ones wait longest.
    const fees = (list: readonly IdOutcome[]): number | undefined =>
      percentile(
        list.map((x) => x.expectedFee),
        50,
      );
    out.write(
      `median expected fee: missed ${fmtFee(fees(missed))}, claimed by us ${fmtFee(fees(outcomes.filter((x) => x.claimedByUs)))}\n`,
    );
    out.write(
      `missed ids (first 10): ${missed
        .slice(0, 10)
        .map(
          (m) =>
            `${m.id} [${fmtClock(m.firstPushAt - soak.t0)}, ${m.goneReason ?? "open"}, our codes ${m.ourRequests.map((r) => r.code).join("/") || "none"}, during ${soak.faultsDuring(m).join("+") || "no fault"}]`,
        )
        .join("; ")}\n`,
    );
  }
  out.write(`verdict: ${verdict}\n`);

  const json = {
    kind: "soak",
    startedAt: new Date(soak.t0).toISOString(),
    endedAt: new Date(endedAt).toISOString(),
    node: process.version,
    options: soak.o,
    policy: SOAK_POLICY,
    definitions: {
      eligible: `offered at least ${GRACE_MS} ms before the end of the run and not taken by a competitor within ${GRACE_MS} ms of its first push (the policy is wide open: every offered liquidation is within it)`,
      missed: "eligible and never claimed by us",
      eventLoop: EL_NOTE,
      duplicate: "an id with two successful claims of ours, or a claim request of ours after our success",
      failed: "our claim requests the venue refused, by code (-1 = connection dropped by a fault)",
    },
    verdict,
    totals: {
      ...totals,
      requests,
      failedByCode,
      claimDelayMs: { p50: percentile(delays, 50), p99: percentile(delays, 99), max: percentile(delays, 100) },
    },
    unwind: daemon.unwind,
    minutes: rows,
    markdown: markdownTable(rows),
    notReady: notReadySpans(soak.readiness, soak.t0),
    samples: soak.scrapes.map((s) =>
      "missing" in s
        ? { t: s.at - soak.t0, missing: true }
        : {
            t: s.at - soak.t0,
            rssBytes: s.rssBytes,
            heapUsedBytes: s.heapUsedBytes,
            eventLoopP99Ms: s.eventLoopP99Ms,
            eventLoopMaxMs: s.eventLoopMaxMs,
            ready: s.ready,
          },
    ),
    faults: soak.faults.map((f) => ({
      kind: f.kind,
      detail: f.detail,
      atMs: f.atMs,
      durationMs: f.durationMs,
      startedMs: f.startedAt === undefined ? undefined : f.startedAt - soak.t0,
      endedMs: f.endedAt === undefined ? undefined : f.endedAt - soak.t0,
      error: f.error,
    })),
    daemon: {
      starts: soak.daemon.starts,
      unexpectedExits: soak.unexpectedExits,
      finalStop: stopExit,
      counters: daemon,
      warnings: Object.fromEntries([...soak.daemon.problems].sort((a, b) => b[1] - a[1]).slice(0, 30)),
    },
    missed: missed.slice(0, 100).map((m) => ({ ...m, firstPushMs: m.firstPushAt - soak.t0, faultsDuring: soak.faultsDuring(m) })),
    duplicates: duplicates.map((d) => ({ id: d.id, requests: d.ourRequests })),
  };
  const dir = resolve(soak.o.outDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `soak-${isoStamp(soak.t0)}.json`);
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  out.write(`report: ${file}\n`);
  return verdict === "ok" ? 0 : verdict === "interrupted" ? 130 : 1;
}

const fmtFee = (v: number | undefined): string => (v === undefined ? "-" : v.toFixed(2));
const fmtMs = (v: number | undefined): string => (v === undefined ? "-" : `${v.toFixed(v < 10 ? 2 : 0)} ms`);
const fmtMb = (v: number | undefined): string => (v === undefined ? "-" : (v / 2 ** 20).toFixed(1));

/** prom-client samples the loop every 10 ms and reports the time between samples: an idle process reads ~10 ms. */
const EL_NOTE = "prom-client's event-loop figures include its 10 ms sampling interval: an idle process reads about 10 ms";

/**
 * Why the missed ones were missed, as far as the venue saw: never sent, or given up after the listed
 * answers (-1 = the connection dropped before an answer); with the faults each lived through.
 */
function missedCauses(missed: readonly IdOutcome[], faultsDuring: (m: IdOutcome) => string[]): string {
  const groups = new Map<string, { n: number; faults: Map<string, number> }>();
  for (const m of missed) {
    const codes = m.ourRequests.map((r) => r.code);
    const cause = codes.length === 0 ? "never sent" : `given up after ${codes.join("/")}`;
    const g = groups.get(cause) ?? { n: 0, faults: new Map<string, number>() };
    groups.set(cause, g);
    g.n++;
    const f = faultsDuring(m).join("+") || "no fault";
    g.faults.set(f, (g.faults.get(f) ?? 0) + 1);
  }
  return [...groups]
    .sort((a, b) => b[1].n - a[1].n)
    .map(([cause, g]) => `${cause} ×${g.n} (${[...g.faults].map(([f, n]) => `${f} ×${n}`).join(", ")})`)
    .join("; ");
}

function isoStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, "-");
}

export function fmtClock(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** Runs of consecutive failed /readyz probes, as [start, end] seconds from the start of the run. */
function notReadySpans(probes: readonly { at: number; ready: boolean }[], t0: number): [number, number][] {
  const spans: [number, number][] = [];
  let start: number | undefined;
  let last = t0;
  for (const p of [...probes].sort((a, b) => a.at - b.at)) {
    if (!p.ready && start === undefined) start = p.at;
    if (p.ready && start !== undefined) {
      spans.push([Math.round((start - t0) / 100) / 10, Math.round((last - t0) / 100) / 10]);
      start = undefined;
    }
    last = p.at;
  }
  if (start !== undefined) spans.push([Math.round((start - t0) / 100) / 10, Math.round((last - t0) / 100) / 10]);
  return spans;
}
