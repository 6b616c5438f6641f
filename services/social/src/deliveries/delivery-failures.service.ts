import { Injectable } from '@nestjs/common';
import {
  deliveryHost,
  DELIVERY_FAILURES_MAX,
  REMOTE_URI_MAX,
  type DeliveryFailureListResult,
} from '@blog/contracts';
import type { DeliveryGivenUp } from '@blog/federation';
import { DeliveryFailuresRepository } from './delivery-failures.repository.js';

/** Longest error text kept (a remote server's answer can be long). */
const ERROR_MAX = 500;

/**
 * Deliveries the federation gave up (a server gone, unreachable for the retry period, or its
 * circuit kept open), kept per server for the owner; a later delivery there clears its row.
 */
@Injectable()
export class DeliveryFailuresService {
  constructor(private readonly failures: DeliveryFailuresRepository) {}

  givenUp(report: DeliveryGivenUp): Promise<void> {
    return this.failures.record({
      host: deliveryHost(report.inbox),
      inbox: report.inbox.slice(0, REMOTE_URI_MAX),
      activityId: report.activityId?.slice(0, REMOTE_URI_MAX) ?? null,
      reason: report.reason,
      // Fedify says 0 for "no answer" (a circuit drop).
      statusCode: report.statusCode || null,
      error: report.error?.slice(0, ERROR_MAX) ?? null,
    });
  }

  /** The server takes deliveries again: nothing to report about it any more. */
  async delivered(inbox: string): Promise<void> {
    await this.failures.remove(deliveryHost(inbox));
  }

  async list(): Promise<DeliveryFailureListResult> {
    return { items: await this.failures.list(DELIVERY_FAILURES_MAX) };
  }

  async dismiss(host: string): Promise<{ removed: boolean }> {
    return { removed: await this.failures.remove(host) };
  }
}
