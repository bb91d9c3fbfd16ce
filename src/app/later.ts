/**
 * A part that another part calls before it can be built: the wiring has cycles (the claimer asks the
 * daemon for a positions read, the daemon needs the claimer). Bound once, right after its builder
 * ran; a call before that is a wiring bug and throws instead of reading undefined.
 */
export class Later<T> {
  readonly #name: string;
  #slot: { value: T } | undefined;

  constructor(name: string) {
    this.#name = name;
  }

  bind(value: T): T {
    if (this.#slot !== undefined) throw new Error(`assembly: ${this.#name} is bound twice`);
    this.#slot = { value };
    return value;
  }

  get(): T {
    if (this.#slot === undefined) throw new Error(`assembly: ${this.#name} is used before it is built`);
    return this.#slot.value;
  }
}
