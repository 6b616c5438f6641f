import { isRpcErrorBody } from '@blog/contracts';
import { RpcError } from '@blog/server-kit';

/** Tries of one import: a crash or a run past its budget counts as one; the third ends it `failed`. */
export const IMPORT_ATTEMPTS = 3;

/** An attempt that ran past the wall-clock budget (IMPORT_BUDGET_MS): it counts as a crashed one. */
export class ImportTimeout extends Error {
  constructor(budgetMs: number) {
    super(`The import ran past its time budget of ${describeDuration(budgetMs)}`);
    this.name = 'ImportTimeout';
  }
}

function describeDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/**
 * The words of an error for the report. An RpcError (a post the posts service refused) carries
 * its message in its body; its own `message` is Nest's generic "Rpc Error".
 */
export function errorMessage(error: unknown): string {
  if (error instanceof RpcError) return error.body.error;
  if (isRpcErrorBody(error)) return error.error;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** One attempt's wall-clock budget: `check()` throws ImportTimeout once it is spent; `signal` aborts streams. */
export function attemptBudget(budgetMs: number): { signal: AbortSignal; check(): void } {
  const signal = AbortSignal.timeout(budgetMs);
  return {
    signal,
    check() {
      if (signal.aborted) throw new ImportTimeout(budgetMs);
    },
  };
}
