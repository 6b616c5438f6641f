/**
 * At most `atOnce` tasks run at a time; the others wait their turn in arrival order. The line is
 * bounded twice, so a flood costs memory and time only up to a point: no more than `maxWaiting`
 * wait, and none longer than `maxWaitMs`. A caller who gets no turn is told so (null), at once
 * when the line is full, and at the end of its wait otherwise.
 */
export class TakingTurns {
  private running = 0;
  private readonly waiting: Array<(turn: boolean) => void> = [];

  constructor(
    readonly atOnce: number,
    readonly maxWaiting: number,
    readonly maxWaitMs: number,
  ) {}

  /** How many run now, and how many wait. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Resolves to the function that ends this turn (call it once, whatever happens), or to null. */
  async turn(): Promise<(() => void) | null> {
    if (this.running < this.atOnce) {
      this.running++;
      return this.release();
    }
    if (this.waiting.length >= this.maxWaiting) return null;
    const got = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(wake);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(false);
      }, this.maxWaitMs);
      const wake = (turn: boolean) => {
        clearTimeout(timer);
        resolve(turn);
      };
      this.waiting.push(wake);
    });
    return got ? this.release() : null;
  }

  private release(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next in line: no newcomer takes it in between.
      if (next) next(true);
      else this.running--;
    };
  }
}
