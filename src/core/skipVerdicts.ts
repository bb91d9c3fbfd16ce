/**
 * Why a claimer last passed on each open id, with a count per reason. Every mark frame asks for
 * the ids skipped for a stale or missing mark, and most of the time there are none. At the exposure
 * cap thousands of ids wait skipped for exposure; the counts answer "none for these reasons"
 * without walking them on every frame.
 */
const NONE: readonly number[] = [];

export class SkipVerdicts {
  readonly #byId = new Map<number, string>();
  readonly #perReason = new Map<string, number>();

  get size(): number {
    return this.#byId.size;
  }

  get(id: number): string | undefined {
    return this.#byId.get(id);
  }

  /** Records the verdict; false when the id already had it (a repeated skip is not counted again). */
  set(id: number, reason: string): boolean {
    const before = this.#byId.get(id);
    if (before === reason) return false;
    if (before !== undefined) this.#count(before, -1);
    this.#byId.set(id, reason);
    this.#count(reason, 1);
    return true;
  }

  delete(id: number): void {
    const before = this.#byId.get(id);
    if (before === undefined) return;
    this.#byId.delete(id);
    this.#count(before, -1);
  }

  /**
   * The ids last skipped for one of `reasons` (all when omitted), in the order they were first
   * skipped. A copy: re-deciding them changes the verdicts.
   */
  ids(reasons?: ReadonlySet<string>): readonly number[] {
    if (this.#byId.size === 0) return NONE;
    if (reasons === undefined) return [...this.#byId.keys()];
    let n = 0;
    for (const r of reasons) n += this.#perReason.get(r) ?? 0;
    if (n === 0) return NONE;
    const out: number[] = [];
    for (const [id, reason] of this.#byId) if (reasons.has(reason)) out.push(id);
    return out;
  }

  /** Forgets the verdicts of ids that are no longer open. */
  retain(isOpen: (id: number) => boolean): void {
    for (const id of this.#byId.keys()) if (!isOpen(id)) this.delete(id);
  }

  #count(reason: string, by: number): void {
    const n = (this.#perReason.get(reason) ?? 0) + by;
    if (n === 0) this.#perReason.delete(reason);
    else this.#perReason.set(reason, n);
  }
}
