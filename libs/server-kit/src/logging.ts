import { AsyncLocalStorage } from 'node:async_hooks';
import type { LoggerService } from '@nestjs/common';

interface RequestContext {
  requestId: string;
}

/** Carries the request id through async work so every log line can name it. */
export const requestContext = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

const LEVELS = { debug: 10, verbose: 10, log: 20, info: 20, warn: 30, error: 40, fatal: 50 } as const;
type Level = keyof typeof LEVELS;

/** Structured JSON logs, one object a line on stdout, for every server process. */
export class JsonLogger implements LoggerService {
  private readonly threshold: number;

  constructor(
    private readonly service: string,
    level: 'debug' | 'info' | 'warn' | 'error' = 'info',
  ) {
    this.threshold = LEVELS[level];
  }

  log(message: unknown, ...rest: unknown[]) {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.write('debug', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]) {
    this.write('fatal', message, rest);
  }

  /** Writes one event with extra fields (`logger.event('info', 'request', {...})`). */
  event(level: Level, msg: string, fields: Record<string, unknown> = {}) {
    if (LEVELS[level] < this.threshold) return;
    const line = {
      time: new Date().toISOString(),
      level: level === 'log' ? 'info' : level,
      service: this.service,
      msg,
      requestId: currentRequestId(),
      ...fields,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }

  private write(level: Level, message: unknown, rest: unknown[]) {
    // Nest passes the context (class name) last, and for errors a stack before it.
    const context = typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    const stack = typeof rest[0] === 'string' ? (rest.shift() as string) : undefined;
    const fields: Record<string, unknown> = { context };
    if (stack) fields.stack = stack;
    if (message instanceof Error) {
      fields.stack = message.stack;
      this.event(level, message.message, fields);
    } else if (typeof message === 'object' && message !== null) {
      this.event(level, 'event', { ...fields, ...(message as Record<string, unknown>) });
    } else {
      this.event(level, String(message), fields);
    }
  }
}
