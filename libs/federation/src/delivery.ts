// Delivery bookkeeping around Fedify's outbox: the retry policy (48 h), the give-up reports, and
// the global fetch its delivery POSTs use, routed through the outbound policy.
import type { AsyncLocalStorage } from 'node:async_hooks';
import type { MessageQueue, RetryPolicy } from '@fedify/fedify';
import { webFetch, type OutboundAllowList, type WebFetchOptions } from '@blog/server-kit';

export interface DeliveryGivenUp {
  activityId: string | null;
  inbox: string;
  /** gone: the inbox answered 404/410; expired: failing for the whole retry period; dropped: the host's circuit stayed open. */
  reason: 'gone' | 'expired' | 'dropped';
  statusCode: number | null;
  error: string | null;
}

/**
 * Fedify's delivery POSTs call the global fetch, with no address check (G11): the process that runs its
 * queue routes them through the outbound policy at boot. No server code of the blog uses the global
 * fetch otherwise. Returns the undo.
 */
export function routeGlobalFetch(allow: OutboundAllowList, options?: WebFetchOptions): () => void {
  const previous = globalThis.fetch;
  globalThis.fetch = webFetch(allow, options);
  return () => {
    globalThis.fetch = previous;
  };
}

/** Back-off from 30 s doubling up to 6 h between tries, for `retryHours`; then given up. */
export function backOff(retryHours: number): RetryPolicy {
  return ({ elapsedTime, attempts }) =>
    elapsedTime.total('hour') >= retryHours
      ? null
      : Temporal.Duration.from({ seconds: Math.min(30 * 2 ** attempts, 6 * 3600) });
}

export interface OutboxMessageInfo {
  inbox: string;
  activityId?: string;
  started: string;
  attempt: number;
  /** Set when this try failed, was held back or given up (a retry enqueued, a report made): no success to tell. */
  failed?: boolean;
}

export const permanent = (error: Error) => [404, 410].includes(statusOf(error) ?? 0);
export const statusOf = (error: Error): number | null => {
  const code = (error as Error & { statusCode?: unknown }).statusCode;
  return typeof code === 'number' ? code : null;
};

/**
 * The queue, its handler run inside `store` with the outbox message being delivered. `onDelivered`
 * hears of an outbox message whose handling neither enqueued anything (Fedify's retry or hold)
 * nor was marked failed: its inbox took the activity.
 */
export function watchOutbox(
  queue: MessageQueue,
  store: AsyncLocalStorage<OutboxMessageInfo>,
  onDelivered?: (inbox: string) => void | Promise<void>,
): MessageQueue {
  const markFailed = () => {
    const delivering = store.getStore();
    if (delivering) delivering.failed = true;
  };
  // Delegating calls, not a prototype copy: queues keep private (#) fields.
  const wrapped: MessageQueue = {
    nativeRetrial: queue.nativeRetrial ?? false,
    enqueue: (message, options) => {
      markFailed();
      return queue.enqueue(message, options);
    },
    listen: (handler, listenOptions) =>
      queue.listen((message: { type?: string } & Partial<OutboxMessageInfo>) => {
        if (message?.type !== 'outbox' || !message.inbox || !message.started) return handler(message);
        const info: OutboxMessageInfo = {
          inbox: message.inbox,
          activityId: message.activityId,
          started: message.started,
          attempt: message.attempt ?? 0,
        };
        return store.run(info, async () => {
          await handler(message);
          // The hook's own failure must not fail the message: the queue would deliver it again.
          if (!info.failed) await Promise.resolve(onDelivered?.(info.inbox)).catch(() => undefined);
        });
      }, listenOptions),
  };
  if (queue.enqueueMany) {
    const many = queue.enqueueMany.bind(queue);
    wrapped.enqueueMany = (messages, options) => {
      markFailed();
      return many(messages, options);
    };
  }
  if (queue.getDepth) {
    const depth = queue.getDepth.bind(queue);
    wrapped.getDepth = () => depth();
  }
  return wrapped;
}
