import { existsSync } from 'node:fs';
import { localServer } from './local-server.js';
import { freePort } from './ports.js';

/** One client connection as the NATS monitoring endpoint reports it. */
export interface NatsConnectionInfo {
  name?: string;
  in_msgs: number;
  out_msgs: number;
}

export interface TestNats {
  url: string;
  /** Kills the server; `start` brings it back on the same port (clients reconnect by themselves). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** The client connections the server has now, from its monitoring endpoint. */
  connections(): Promise<NatsConnectionInfo[]>;
}

/** Debian's nats-server (NATS_SERVER overrides the path). */
export function natsServerBinary(): string {
  const candidates = [process.env.NATS_SERVER, '/usr/sbin/nats-server', '/usr/bin/nats-server'];
  const found = candidates.find((path): path is string => !!path && existsSync(path));
  if (!found) throw new Error('nats-server not found: apt-get install nats-server, or set NATS_SERVER');
  return found;
}

/** A real nats-server on free ports (client and monitoring), for one test file. */
export async function startTestNats(): Promise<TestNats> {
  const [port, monitorPort] = [await freePort(), await freePort()];
  const monitor = `http://127.0.0.1:${monitorPort}`;
  const server = localServer(
    'nats-server',
    natsServerBinary(),
    ['-a', '127.0.0.1', '-p', String(port), '-m', String(monitorPort)],
    async () => (await fetch(`${monitor}/healthz`)).ok,
  );
  await server.start();
  return {
    url: `nats://127.0.0.1:${port}`,
    start: server.start,
    stop: server.stop,
    async connections() {
      const body = (await (await fetch(`${monitor}/connz?limit=1024`)).json()) as {
        connections?: NatsConnectionInfo[];
      };
      return body.connections ?? [];
    },
  };
}
