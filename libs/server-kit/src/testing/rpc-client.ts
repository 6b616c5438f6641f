import { ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
import type { RpcEnvelope, RpcErrorBody } from '@blog/contracts';
import { firstValueFrom } from 'rxjs';

/** A test's RPC client of one service on 127.0.0.1 over TCP: calls as the gateway makes them. */
export interface RpcTestClient {
  send<T>(pattern: string, data?: unknown): Promise<T>;
  /** The error body of a call that must fail (throws when it succeeds). */
  failure(pattern: string, data?: unknown): Promise<RpcErrorBody>;
  close(): void;
}

export function rpcTestClient(port: number): RpcTestClient {
  const client: ClientProxy = ClientProxyFactory.create({
    transport: Transport.TCP,
    options: { host: '127.0.0.1', port },
  });
  const send = <T>(pattern: string, data: unknown = {}) =>
    firstValueFrom(client.send<T>(pattern, { requestId: 'test', data } satisfies RpcEnvelope<unknown>));
  return {
    send,
    async failure(pattern, data) {
      try {
        await send(pattern, data);
      } catch (error) {
        return error as RpcErrorBody;
      }
      throw new Error(`expected ${pattern} to fail`);
    },
    close: () => client.close(),
  };
}
