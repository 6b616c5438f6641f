import { Inject, Injectable } from '@nestjs/common';
import {
  FEDERATION_MAX_BODY_BYTES,
  type FederationHttpAnswer,
  type FederationHttpRequest,
} from '@blog/contracts';
import { TakingTurns } from '@blog/server-kit';
import { SOCIAL_CONFIG, type SocialConfig } from '../config.js';
import { FederationRuntime } from './federation-runtime.js';

const refusal = (
  status: number,
  error: string,
  headers: Array<[string, string]> = [],
): FederationHttpAnswer => ({
  pass: false,
  status,
  headers: [['content-type', 'application/json'], ...headers],
  body: Buffer.from(JSON.stringify({ error })).toString('base64'),
});

/** Inbox POSTs waiting for their turn, at most, and for how long (under the gateway's RPC wait). */
const INBOX_MAX_WAITING = 64;
const INBOX_MAX_WAIT_MS = 3000;
/** A sender told "busy" tries again after this long (Mastodon retries a delivery anyway). */
const BUSY_RETRY_AFTER_SECONDS = '5';

/**
 * A document JSON-LD cannot process (a context that cannot be loaded: refused, too large, endless,
 * not JSON-LD). Fedify lets these through from its inbox; they are the sender's fault, not ours.
 */
const unreadableDocument = (error: unknown) => error instanceof Error && error.name.startsWith('jsonld.');

/**
 * The gateway's federation requests (webfinger, NodeInfo, the actor, Articles, inbox POSTs),
 * answered by Fedify here: signatures are checked, and inbox activities queued, in this service.
 */
@Injectable()
export class FederationHttpService {
  /**
   * Inbox POSTs are checked FEDERATION_INBOX_AT_ONCE at a time. Taken in faster than the queue
   * is worked, they only lengthen the queue, and a process busy with nothing else makes its
   * visitors wait: a flood of deliveries waits its turn here instead, or hears 503 Retry-After.
   */
  private readonly inboxTurns: TakingTurns;

  constructor(
    private readonly runtime: FederationRuntime,
    @Inject(SOCIAL_CONFIG) config: SocialConfig,
  ) {
    this.inboxTurns = new TakingTurns(config.FEDERATION_INBOX_AT_ONCE, INBOX_MAX_WAITING, INBOX_MAX_WAIT_MS);
  }

  async handle(input: FederationHttpRequest): Promise<FederationHttpAnswer> {
    const body = input.body === undefined ? undefined : Buffer.from(input.body, 'base64');
    if (body && body.length > FEDERATION_MAX_BODY_BYTES) return refusal(413, 'payload too large');
    if (input.method !== 'POST') return this.answer(input, body);
    const endTurn = await this.inboxTurns.turn();
    if (!endTurn) return refusal(503, 'busy', [['retry-after', BUSY_RETRY_AFTER_SECONDS]]);
    try {
      return await this.answer(input, body);
    } finally {
      endTurn();
    }
  }

  private async answer(
    input: FederationHttpRequest,
    body: Buffer | undefined,
  ): Promise<FederationHttpAnswer> {
    const request = new Request(input.url, {
      method: input.method,
      headers: input.headers,
      body: input.method === 'POST' ? (body ?? new Uint8Array()) : undefined,
    });
    let response: Response | null;
    try {
      response = await this.runtime.blog.respond(request);
    } catch (error) {
      if (input.method === 'POST' && unreadableDocument(error)) return refusal(400, 'unreadable activity');
      throw error;
    }
    if (!response) return { pass: true };
    const bytes = input.method === 'HEAD' ? null : new Uint8Array(await response.arrayBuffer());
    return {
      pass: false,
      status: response.status,
      headers: [...response.headers],
      body: bytes && bytes.length > 0 ? Buffer.from(bytes).toString('base64') : null,
      signer: this.runtime.blog.signerOf(request),
    };
  }
}
