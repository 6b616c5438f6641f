import { Injectable } from '@nestjs/common';
import {
  FEDERATION_MAX_BODY_BYTES,
  type FederationHttpAnswer,
  type FederationHttpRequest,
} from '@blog/contracts';
import { FederationRuntime } from './federation-runtime.js';

const refusal = (status: number, error: string): FederationHttpAnswer => ({
  pass: false,
  status,
  headers: [['content-type', 'application/json']],
  body: Buffer.from(JSON.stringify({ error })).toString('base64'),
});

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
  constructor(private readonly runtime: FederationRuntime) {}

  async handle(input: FederationHttpRequest): Promise<FederationHttpAnswer> {
    const body = input.body === undefined ? undefined : Buffer.from(input.body, 'base64');
    if (body && body.length > FEDERATION_MAX_BODY_BYTES) return refusal(413, 'payload too large');
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
