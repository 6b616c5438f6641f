import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import {
  ErrorText,
  healthPattern,
  isRpcErrorBody,
  SERVICE_NAMES,
  type HealthReport,
  type RpcAnswer,
  type RpcEnvelope,
  type RpcRequest,
  type ServiceName,
  type TypedPattern,
} from '@blog/contracts';
import { createRpcClient, currentRequestId, JsonLogger } from '@blog/server-kit';
import { randomUUID } from 'node:crypto';
import { firstValueFrom, timeout } from 'rxjs';
import { ApiError } from '../common/api-error.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';

export type ServiceState = 'up' | 'down';

/**
 * 503 from a service call. `delivered` says whether the service may have received it:
 * false only when the connection was refused, so nothing can have happened there.
 */
export class ServiceUnavailableError extends ApiError {
  constructor(readonly delivered: boolean) {
    super(503, ErrorText.serviceUnavailable);
  }
}

/**
 * The gateway's only way to reach a service. A service's own error keeps its status;
 * a service that is down, drops the connection or does not answer in time is a quick 503.
 * Clients reconnect by themselves on the next call once the service is back.
 * TCP: one connection per service address. NATS: one connection for all, and whichever
 * replica of the service is free answers (a request lost with a dying replica times out: 503).
 */
@Injectable()
export class ServiceClients implements OnModuleDestroy {
  private readonly clients: Record<ServiceName, ClientProxy>;
  private readonly logger: JsonLogger;
  /** The NATS connection's last known state (TCP has no shared connection to report). */
  private natsConnected = false;

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {
    this.logger = new JsonLogger('gateway', config.LOG_LEVEL);
    const address: Record<ServiceName, { host: string; port: number }> = {
      auth: { host: config.AUTH_HOST, port: config.AUTH_PORT },
      posts: { host: config.POSTS_HOST, port: config.POSTS_PORT },
      media: { host: config.MEDIA_HOST, port: config.MEDIA_PORT },
      mail: { host: config.MAIL_HOST, port: config.MAIL_PORT },
      social: { host: config.SOCIAL_HOST, port: config.SOCIAL_PORT },
    };
    const shared = config.TRANSPORT === 'nats' ? createRpcClient(config, 'gateway', address.posts) : null;
    shared?.status.subscribe((status) => (this.natsConnected = status === 'connected'));
    this.clients = Object.fromEntries(
      SERVICE_NAMES.map((name) => [name, shared ?? createRpcClient(config, 'gateway', address[name])]),
    ) as Record<ServiceName, ClientProxy>;
  }

  /** A call of `pattern`: its request and its answer as RpcContracts declares them. */
  call<P extends TypedPattern>(
    service: ServiceName,
    pattern: P,
    data: RpcRequest<P>,
    timeoutMs?: number,
  ): Promise<RpcAnswer<P>> {
    return this.send<RpcAnswer<P>>(service, pattern, data, timeoutMs);
  }

  private async send<T>(
    service: ServiceName,
    pattern: string,
    data: unknown,
    timeoutMs = this.config.RPC_TIMEOUT_MS,
  ): Promise<T> {
    const envelope: RpcEnvelope<unknown> = { requestId: currentRequestId() ?? randomUUID(), data };
    try {
      return await firstValueFrom(this.clients[service].send<T>(pattern, envelope).pipe(timeout(timeoutMs)));
    } catch (error) {
      if (isRpcErrorBody(error)) {
        const headers: Record<string, string> = error.retryAfter
          ? { 'Retry-After': String(error.retryAfter) }
          : {};
        const extra = error.twoFactorRequired ? { twoFactorRequired: true } : {};
        throw new ApiError(error.status, error.error, headers, extra);
      }
      this.logger.event('warn', 'service unavailable', {
        target: service,
        pattern,
        reason: error instanceof Error ? error.message : String(error),
      });
      const refused = (error as { code?: string }).code === 'ECONNREFUSED';
      throw new ServiceUnavailableError(!refused);
    }
  }

  /**
   * A call that changes nothing (a read), tried once more when the transport failed: after
   * the NATS connection is back (a broker restart) or a short pause (a replica that died
   * with the request), at most READ_RETRY_WAIT_MS. A service's own answer (404, 400) is final.
   */
  async read<P extends TypedPattern>(
    service: ServiceName,
    pattern: P,
    data: RpcRequest<P>,
  ): Promise<RpcAnswer<P>> {
    try {
      return await this.call(service, pattern, data);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableError)) throw error;
      await this.transportBack(this.config.READ_RETRY_WAIT_MS);
      return this.call(service, pattern, data);
    }
  }

  /** Resolves once NATS is connected again, or after a short pause on TCP; never later than `maxMs`. */
  private async transportBack(maxMs: number): Promise<void> {
    const deadline = Date.now() + maxMs;
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, maxMs)));
    while (this.config.TRANSPORT === 'nats' && !this.natsConnected && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
  }

  /** Up only when the service answers in time and reaches its database. */
  async state(service: ServiceName): Promise<ServiceState> {
    try {
      const report = await this.send<HealthReport>(
        service,
        healthPattern(service),
        {},
        this.config.HEALTH_TIMEOUT_MS,
      );
      return report.status === 'up' && report.database === 'up' ? 'up' : 'down';
    } catch {
      return 'down';
    }
  }

  /** Which transport carries the calls and whether it is up (TCP is per service: see each state). */
  transportState(): { kind: GatewayConfig['TRANSPORT']; state: ServiceState } {
    if (this.config.TRANSPORT === 'tcp') return { kind: 'tcp', state: 'up' };
    return { kind: 'nats', state: this.natsConnected ? 'up' : 'down' };
  }

  onModuleDestroy() {
    for (const client of new Set(Object.values(this.clients))) void client.close();
  }
}
