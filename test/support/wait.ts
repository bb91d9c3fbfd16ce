/**
 * The tests' one way to wait: poll a condition until it holds (a truthy value, returned) or time
 * runs out (an error naming what was awaited and the last error the condition threw); a window in
 * which something must not happen, bounded by the work of the code under test rather than by a
 * clock (`nothingHappens`); and a plain sleep (the app's, so every wait in the project can take an
 * AbortSignal). Not a test file itself.
 */
import { sleep } from "../../src/sleep.js";

export { sleep };

type Truthy<T> = Exclude<T, undefined | null | false | 0 | "">;

export async function waitFor<T>(cond: () => T | Promise<T>, what: string, timeoutMs = 20_000, intervalMs = 50): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v as Truthy<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ""}`);
    await sleep(intervalMs); // between two looks at the condition
  }
}

/** Something the code under test does again and again (its reconcile reads, market steps), counted. */
export interface Work {
  /** What is counted, plural ("reconcile rounds"): for the messages. */
  what: string;
  count(): number | Promise<number>;
}

/**
 * A window in which something must not happen, ended by evidence instead of a clock: it lasts until
 * `work` has advanced `times` more (proof the code under test looked that often: each time was a
 * chance for the forbidden thing), and fails as soon as `happened` returns what went wrong (a truthy
 * value; a string says what), looked at on every turn and once more after the count is reached.
 * Effects of the last counted time may still be on the way: ask for at least 2 where they travel
 * over a socket. Times out (an error) when the work stops advancing: no proof, no pass.
 */
export async function nothingHappens(happened: () => unknown, work: Work, times = 2, timeoutMs = 30_000, intervalMs = 50): Promise<void> {
  const until = (await work.count()) + times;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const done = (await work.count()) >= until;
    const wrong = await happened();
    if (wrong) throw new Error(`${typeof wrong === "string" ? wrong : "the forbidden thing happened"} (within ${times} ${work.what})`);
    if (done) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${times} more ${work.what}`);
    await sleep(intervalMs); // between two looks at the work and the forbidden thing
  }
}
