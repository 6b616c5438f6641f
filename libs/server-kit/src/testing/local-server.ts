import { spawn, type ChildProcess } from 'node:child_process';

export interface LocalServer {
  /** Starts the server and resolves once `ready` says so (it may be stopped and started again). */
  start(): Promise<void>;
  /** Kills it at once (a test of the server being down) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * A server binary the tests run themselves (redis-server, nats-server) on ports chosen by the
 * caller: started, polled until `ready`, killed, and startable again on the same ports.
 */
export function localServer(
  name: string,
  command: string,
  args: string[],
  ready: () => Promise<boolean>,
): LocalServer {
  let child: ChildProcess | undefined;
  return {
    async start() {
      child = spawn(command, args, { stdio: 'ignore' });
      for (let i = 0; i < 100; i++) {
        if (await ready().catch(() => false)) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`${name} did not start (${command} ${args.join(' ')})`);
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGKILL');
      });
    },
  };
}
