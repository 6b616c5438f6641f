import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';

/**
 * Work that outlives the message that started it (sending the e-mail after answering the
 * form). Shutdown waits for it, briefly; whatever does not finish is still stored as due
 * and the next sweep (here or on another replica) sends it.
 */
@Injectable()
export class BackgroundTasks implements OnModuleDestroy {
  private readonly logger = new Logger(BackgroundTasks.name);
  private readonly tasks = new Set<Promise<unknown>>();

  run(name: string, task: () => Promise<unknown>): void {
    const promise: Promise<unknown> = task()
      .catch((error: unknown) => this.logger.error(`${name} failed: ${(error as Error)?.message ?? error}`))
      .finally(() => this.tasks.delete(promise));
    this.tasks.add(promise);
  }

  /** Resolves once every task started so far has ended (or after `timeoutMs`). */
  async drain(timeoutMs = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.tasks]),
      new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
  }

  onModuleDestroy() {
    return this.drain();
  }
}
