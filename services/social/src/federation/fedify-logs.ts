// Fedify logs through LogTape, which prints nothing until configured (G10): its lines go to the
// service's JsonLogger, warnings and errors only unless FEDERATION_LOG_LEVEL says otherwise.
import { AsyncLocalStorage } from 'node:async_hooks';
import { configure, getConfig, type LogLevel, type LogRecord } from '@logtape/logtape';
import type { JsonLogger } from '@blog/server-kit';

type BlogLevel = 'debug' | 'info' | 'warn' | 'error';

const TO_LOGTAPE: Record<BlogLevel, LogLevel> = {
  debug: 'debug',
  info: 'info',
  warn: 'warning',
  error: 'error',
};
const FROM_LOGTAPE: Record<LogLevel, 'debug' | 'info' | 'warn' | 'error' | 'fatal'> = {
  trace: 'debug',
  debug: 'debug',
  info: 'info',
  warning: 'warn',
  error: 'error',
  fatal: 'fatal',
};

/** A value in a message: short, never a whole object graph (keys and documents stay out of the logs). */
function shown(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (value instanceof URL) return value.href;
  if (typeof value === 'string') return value.slice(0, 500);
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  return `[${(value as object).constructor?.name ?? 'object'}]`;
}

export function renderMessage(record: Pick<LogRecord, 'message'>): string {
  return record.message.map((part, i) => (i % 2 === 0 ? String(part) : shown(part))).join('');
}

/**
 * Routes Fedify's log records to `logger`. LogTape's configuration is one per process (the
 * one-process launcher and tests start several services in it): the first service configures.
 */
export async function routeFedifyLogs(logger: JsonLogger, level: BlogLevel): Promise<void> {
  if (getConfig()) return;
  await configure({
    sinks: {
      blog: (record: LogRecord) =>
        logger.event(FROM_LOGTAPE[record.level], renderMessage(record), {
          context: record.category.join('.'),
        }),
    },
    loggers: [
      { category: ['fedify'], sinks: ['blog'], lowestLevel: TO_LOGTAPE[level] },
      { category: ['logtape', 'meta'], sinks: ['blog'], lowestLevel: 'warning' },
    ],
    contextLocalStorage: new AsyncLocalStorage(),
  });
}
