import type { Server as NetServer } from 'node:net';
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { firstValueFrom, timeout } from 'rxjs';
import { createRpcClient, RpcError, startService } from '@blog/server-kit';
import { freePort, rpcTestClient } from '@blog/server-kit/testing';

@Controller()
class EchoController {
  @MessagePattern('local.echo')
  echo(@Payload() envelope: { data: { at: string } }) {
    return { got: envelope.data, when: new Date(envelope.data.at), skipped: undefined };
  }

  @MessagePattern('local.refuse')
  refuse() {
    throw RpcError.notFound('no such thing');
  }

  @MessagePattern('local.crash')
  crash() {
    throw new Error('a bug');
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

const TCP = { TRANSPORT: 'tcp' as const };

/**
 * Services in one process (the embedded stack) call each other without the loopback socket; what
 * a caller gets is what TCP would have carried (JSON: a Date arrives as its string, an undefined
 * field not at all), errors included. Once the service stops, its callers are refused as over TCP.
 */
describe('RPC between services of one process', () => {
  let app: INestMicroservice;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    port = await freePort();
    app = await startService(EchoModule, {
      name: 'echo',
      host: '127.0.0.1',
      port,
      transport: TCP,
      logLevel: 'error',
    });
    app.unwrap<NetServer>().on('connection', () => connections++);
  });
  afterAll(async () => {
    await app?.close();
  });

  const ask = (client: ReturnType<typeof createRpcClient>, pattern: string, data: unknown = {}) =>
    firstValueFrom(client.send(pattern, { requestId: 'test', data }).pipe(timeout(5000)));

  it('answers a client of this process as TCP would, without opening a connection', async () => {
    const client = createRpcClient(TCP, 'test', { host: '127.0.0.1', port });
    const at = '2026-11-29T08:00:00.000Z';
    expect(await ask(client, 'local.echo', { at })).toEqual({ got: { at }, when: at });
    await expect(ask(client, 'local.refuse')).rejects.toEqual({ status: 404, error: 'no such thing' });
    await expect(ask(client, 'local.crash')).rejects.toMatchObject({ status: 500 });
    await expect(ask(client, 'local.none')).rejects.toMatch(/no matching message handler/);
    expect(connections).toBe(0);
    // The same answers over the socket, from a plain TCP client.
    const tcp = rpcTestClient(port);
    try {
      expect(await tcp.send('local.echo', { at })).toEqual({ got: { at }, when: at });
    } finally {
      tcp.close();
    }
    expect(connections).toBe(1);
    client.close();
  });

  it('a client of another address (or port) talks TCP, and a stopped service refuses its callers', async () => {
    const other = await freePort();
    const elsewhere = createRpcClient(TCP, 'test', { host: '127.0.0.1', port: other });
    await expect(ask(elsewhere, 'local.echo', { at: 'x' })).rejects.toBeDefined();
    elsewhere.close();

    const client = createRpcClient(TCP, 'test', { host: 'localhost', port });
    expect(await ask(client, 'local.echo', { at: 'y' })).toMatchObject({ got: { at: 'y' } });
    await app.close();
    await expect(ask(client, 'local.echo', { at: 'z' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    client.close();
  });
});
