/**
 * The events of the core's model-based tests as fast-check commands: each does one thing to the
 * world and then checks the invariants (modelWorld.ts `check`). The model fast-check carries is only
 * what the commands need to pick sensible ids (the next new one, those listed before); the truth the
 * invariants use is the model venue's.
 */
import fc from "fast-check";
import type { ClaimFate, ModelSymbol, OrderFate } from "./modelVenue.js";
import type { ModelWorld } from "./modelWorld.js";

export interface CommandModel {
  nextId: number;
}

type Cmd = fc.AsyncCommand<CommandModel, ModelWorld>;

/** A command that always applies: `label` for the printed counterexample, `run` for the effect. */
function cmd(label: string, run: (w: ModelWorld, m: CommandModel) => Promise<void>, timed = false): Cmd {
  return {
    check: () => true,
    run: async (m, w) => {
      await run(w, m);
      w.check(timed);
    },
    toString: () => label,
  };
}

const symbol = fc.constantFrom<ModelSymbol>("PERP_ETH_USDC", "PERP_BTC_USDC");
const claimFate = fc.constantFrom<ClaimFate>("full", "full", "full", "lean", "late", "lost_after", "lost_before", "price_moved");
const orderFate = fc.constantFrom<OrderFate>("fill", "partial", "none", "lost_after", "lost_before");

const offer = fc.tuple(symbol, fc.integer({ min: 1, max: 30 }), fc.boolean()).map(([s, steps, pushed]) =>
  cmd(`offer(${s}, ${steps}${pushed ? "" : ", push lost"})`, async (w, m) => {
    await w.offer(m.nextId++, s, steps, pushed);
  }),
);
/** An id pushed again: one still open (a rival took part of it) when `open`, else any seen before. */
const repush = fc.tuple(fc.nat(), fc.boolean()).map(([k, open]) =>
  cmd(`push again(${k}${open ? ", an open one" : ""})`, async (w, m) => {
    const ids = open ? [...w.venue.open.keys()] : Array.from({ length: m.nextId - 1 }, (_, i) => i + 1);
    if (ids.length > 0) await w.repush(ids[k % ids.length] as number);
  }),
);
const permit = fc.constant(cmd("permit", (w) => w.permit()));
const answer = fc
  .tuple(fc.nat(), claimFate, fc.boolean())
  .map(([k, fate, dropPush]) => cmd(`answer(${k}, ${fate}${dropPush ? ", push lost" : ""})`, (w) => w.answer(k, fate, dropPush)));
const deliver = fc
  .tuple(fc.nat(), fc.integer({ min: 0, max: 7 }))
  .map(([k, d]) => cmd(`deliver(${k}${d === 0 ? ", lost" : ""})`, (w) => w.deliver(k, d === 0)));

/** The commands, the common events listed more than once (fast-check picks among the list evenly). */
export const modelCommands: fc.Arbitrary<Cmd>[] = [
  offer,
  offer,
  offer,
  repush,
  permit,
  permit,
  permit,
  answer,
  answer,
  answer,
  deliver,
  deliver,
  deliver,
  deliver,
  fc.constant(cmd("reconcile", (w) => w.reconcile())),
  fc.constantFrom(100, 1_000, 5_000, 30_000, 120_000, 600_000).map((ms) => cmd(`advance(${ms})`, (w) => w.advance(ms), true)),
  orderFate.map((fate) =>
    cmd(`next order ${fate}`, async (w) => {
      w.venue.nextOrderFate = fate;
    }),
  ),
  fc.boolean().map((on) => cmd(`disk ${on ? "fails" : "heals"}`, (w) => w.diskFails(on))),
  fc.boolean().map((down) =>
    cmd(`record ${down ? "down" : "up"}`, async (w) => {
      w.venue.recordDown = down;
    }),
  ),
  fc.integer({ min: -8_000, max: 8_000 }).map((amount) => cmd(`deposit(${amount})`, (w) => w.deposit(amount))),
  fc.constant(cmd("kill -9 and restart", (w) => w.restart())),
];
