import { Injectable } from '@nestjs/common';
import {
  FEDERATION_MAX_BODY_BYTES,
  type FederationHttpAnswer,
  type FederationHttpRequest,
} from '@blog/contracts';
import { FederationRuntime } from './federation-runtime.js';

const tooLarge = (): FederationHttpAnswer => ({
  pass: false,
  status: 413,
  headers: [['content-type', 'application/json']],
  body: Buffer.from(JSON.stringify({ error: 'payload too large' })).toString('base64'),
});

/**
 * The gateway's federation requests (webfinger, NodeInfo, the actor, Articles, inbox POSTs),
 * answered by Fedify here: signatures are checked, and inbox activities queued, in this service.
 */
@Injectable()
export class FederationHttpService {
  constructor(private readonly runtime: FederationRuntime) {}

  async handle(input: FederationHttpRequest): Promise<FederationHttpAnswer> {
    const body = input.body === undefined ? undefined : Buffer.from(input.body, 'base64');
    if (body && body.length > FEDERATION_MAX_BODY_BYTES) return tooLarge();
    const request = new Request(input.url, {
      method: input.method,
      headers: input.headers,
      body: input.method === 'POST' ? (body ?? new Uint8Array()) : undefined,
    });
    const response = await this.runtime.blog.respond(request);
    if (!response) return { pass: true };
    const bytes = input.method === 'HEAD' ? null : new Uint8Array(await response.arrayBuffer());
    return {
      pass: false,
      status: response.status,
      headers: [...response.headers],
      body: bytes && bytes.length > 0 ? Buffer.from(bytes).toString('base64') : null,
    };
  }
}
