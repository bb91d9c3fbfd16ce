/**
 * The tests' one way to wait: poll a condition until it holds (a truthy value, returned) or time
 * runs out (an error naming what was awaited and the last error the condition threw), and a plain
 * sleep (the app's, so every wait in the project can take an AbortSignal). Not a test file itself.
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
