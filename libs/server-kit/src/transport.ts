import {
  ClientProxyFactory,
  Transport,
  type ClientOptions,
  type CustomClientOptions,
  type ClientProxy,
  type MicroserviceOptions,
} from '@nestjs/microservices';
import type { RpcAnswer, RpcEnvelope, RpcRequest, TypedPattern } from '@blog/contracts';
import { hostname } from 'node:os';
import { firstValueFrom, timeout } from 'rxjs';
import { z } from 'zod';
import { LocalFirstClientTcp, LocalServerTcp } from './local-rpc.js';

/** How the processes talk: TCP to one address per service (embedded mode), or NATS with queue groups. */
export const transportEnv = {
  TRANSPORT: z.enum(['tcp', 'nats']).default('tcp'),
  /** nats://host:4222, or several servers of one cluster separated by commas. */
  NATS_URL: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .string()
      .regex(
        /^nats:\/\/[^\s,]+(,nats:\/\/[^\s,]+)*$/,
        'must be nats://host:port (several separated by commas)',
      )
      .optional(),
  ),
};

export interface TransportConfig {
  TRANSPORT: 'tcp' | 'nats';
  NATS_URL?: string;
}

/** The check every config schema adds: NATS needs to know where it is. */
export function requireNatsUrl(config: TransportConfig, ctx: z.RefinementCtx): void {
  if (config.TRANSPORT === 'nats' && !config.NATS_URL) {
    ctx.addIssue({
      code: 'custom',
      path: ['NATS_URL'],
      message: 'is required when TRANSPORT=nats (nats://host:4222)',
    });
  }
}

function natsConnection(config: TransportConfig, name: string) {
  return {
    servers: config.NATS_URL!.split(','),
    name: `${name}@${hostname()}:${process.pid}`,
    // Keep trying for ever: NATS restarting must not leave a process disconnected for good.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  };
}

/**
 * The server side: TCP (its clients in this process are answered without the socket: see
 * local-rpc.ts), or NATS. Under NATS every replica of a service joins the queue group named after
 * the service, so each request goes to exactly one live replica. Patterns are unique across
 * services (see healthPattern), so one subject space serves them all.
 */
export function serverTransport(
  config: TransportConfig,
  name: string,
  tcp: { host: string; port: number },
): MicroserviceOptions {
  if (config.TRANSPORT === 'tcp') return { strategy: new LocalServerTcp(tcp) };
  return {
    transport: Transport.NATS,
    options: {
      ...natsConnection(config, name),
      // A replica may start before NATS does (compose, Kubernetes): wait for it.
      waitOnFirstConnect: true,
      queue: name,
      // On SIGTERM: stop taking requests, finish those under way, then leave.
      gracefulShutdown: true,
      gracePeriod: 2000,
    },
  };
}

/**
 * The client side: TCP to the service's address (straight to the server when it runs in this
 * process: see local-rpc.ts), or NATS (any replica of the service answers).
 */
export function clientTransport(
  config: TransportConfig,
  caller: string,
  tcp: { host: string; port: number },
): ClientOptions | CustomClientOptions {
  // Nest types a custom client as a ClientProxy of untyped status; the TCP client's is TcpStatus.
  if (config.TRANSPORT === 'tcp')
    return {
      customClass: LocalFirstClientTcp as unknown as CustomClientOptions['customClass'],
      options: tcp,
    };
  return { transport: Transport.NATS, options: natsConnection(config, caller) };
}

export function createRpcClient(
  config: TransportConfig,
  caller: string,
  tcp: { host: string; port: number },
): ClientProxy {
  return ClientProxyFactory.create(clientTransport(config, caller, tcp));
}

/** A where-it-is line for logs: never the NATS credentials. */
export function describeTransport(config: TransportConfig, tcp: { host: string; port: number }) {
  if (config.TRANSPORT === 'tcp') return { transport: 'tcp', host: tcp.host, port: tcp.port };
  return { transport: 'nats', servers: config.NATS_URL!.replace(/\/\/[^@/]*@/g, '//') };
}

/**
 * One service's call of another, its request and answer as RpcContracts declares them (the
 * gateway's ServiceClients does the same for the HTTP edge). Errors are the caller's to map.
 */
export function sendTyped<P extends TypedPattern>(
  client: ClientProxy,
  pattern: P,
  data: RpcRequest<P>,
  { requestId, timeoutMs }: { requestId: string; timeoutMs: number },
): Promise<RpcAnswer<P>> {
  const envelope: RpcEnvelope<RpcRequest<P>> = { requestId, data };
  return firstValueFrom(client.send<RpcAnswer<P>>(pattern, envelope).pipe(timeout(timeoutMs)));
}
