// RPC between services that share a process (the embedded stack runs all six in one) without the
// loopback TCP hop: a service's server registers itself under its port while it listens, and a
// client of that port in the same process hands each request straight to it. The request and
// the answers still go through JSON, as on the wire, so a handler sees and a caller gets exactly
// what TCP would carry. A client of any other address talks TCP as before, and so does every
// client once the server has closed (a stopped service is refused as it would be over TCP).
import type { AddressInfo, Server as NetServer } from 'node:net';
import { ClientTCP, ServerTCP, TcpContext, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { NO_MESSAGE_HANDLER } from '@nestjs/microservices/constants.js';

/** Servers of this process by the port they listen on. */
const listening = new Map<number, LocalServerTcp>();
/** Hosts a client may name for a server of its own process. */
const THIS_MACHINE = new Set(['localhost', '127.0.0.1', '::1', '0.0.0.0', '::']);

/** A copy as the wire would carry it. */
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

type Packet = ReadPacket & { id: string };

/** Nest's TCP server, also answering the clients of its own process directly. */
export class LocalServerTcp extends ServerTCP {
  private localPort: number | null = null;

  override listen(callback: (error?: unknown) => void): void {
    super.listen((error?: unknown) => {
      const address = error ? null : ((this.server as unknown as NetServer).address() as AddressInfo | null);
      if (address) {
        this.localPort = address.port;
        listening.set(address.port, this);
      }
      callback(error);
    });
  }

  override close(): void {
    if (this.localPort !== null && listening.get(this.localPort) === this) listening.delete(this.localPort);
    this.localPort = null;
    super.close();
  }

  /** One request of a client in this process: each answer as handleMessage would write it. */
  answer(packet: Packet, reply: (answer: WritePacket & { id: string }) => void): void {
    const pattern = this.getPatternAsString(packet.pattern);
    const handler = this.getHandlerByPattern(pattern);
    if (!handler) return reply({ id: packet.id, err: NO_MESSAGE_HANDLER, isDisposed: true });
    const context = new TcpContext([undefined as never, pattern, undefined]);
    // Typed void, but a promise: a failure before the handler's answer (handleMessage's own catch
    // over TCP) is logged, and the caller told rather than left to its timeout.
    const handled = this.handleRequest(
      context,
      async () => this.transformToObservable(await handler(packet.data, context)),
      (data) => reply({ ...data, id: packet.id }),
    ) as unknown as Promise<void> | undefined;
    handled?.catch((error: unknown) => {
      this.handleError(error instanceof Error ? (error.stack ?? error.message) : String(error));
      reply({ id: packet.id, err: error instanceof Error ? error.message : String(error), isDisposed: true });
    });
  }
}

/** Nest's TCP client, which asks a server of its own process directly when there is one. */
export class LocalFirstClientTcp extends ClientTCP {
  private server(): LocalServerTcp | undefined {
    return THIS_MACHINE.has(this.host) ? listening.get(this.port) : undefined;
  }

  override connect(): Promise<unknown> {
    return this.server() ? Promise.resolve() : super.connect();
  }

  protected override publish(
    partialPacket: ReadPacket,
    callback: (packet: WritePacket) => unknown,
  ): () => void {
    const server = this.server();
    if (!server) return super.publish(partialPacket, callback);
    let open = true;
    try {
      server.answer(wire(this.assignPacketId(partialPacket)), (answer) => {
        if (!open) return;
        const { err, response, isDisposed } = wire(answer);
        if (isDisposed || err) {
          open = false;
          callback({ err, response, isDisposed: true });
        } else callback({ err, response });
      });
    } catch (err) {
      callback({ err });
    }
    return () => {
      open = false;
    };
  }
}
