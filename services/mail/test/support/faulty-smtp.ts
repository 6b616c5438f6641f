import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { freePort } from '@blog/server-kit/testing';

/** What the server does with one message once its body arrived. */
export type DataFault =
  | { code: number }
  /** Never answers the message (a server hung mid-DATA). */
  | 'hang'
  /** Drops the connection without an answer. */
  | 'close';

export interface AcceptedMail {
  raw: string;
  to: string[];
  at: number;
  parsed(): Promise<ParsedMail>;
}

/**
 * A real SMTP server (the smtp-server package) on a free loopback port that counts what it
 * accepted and can refuse, hang or drop, per recipient and per try: `rcpt` and `data` answer
 * for each try (1, 2, …) of an address; `greetingDelayMs` holds back the greeting of the next
 * connections (a slow server).
 */
export interface FaultySmtp {
  url: string;
  accepted: AcceptedMail[];
  rcpt?: (address: string, attempt: number) => number | undefined;
  data?: (address: string, attempt: number) => DataFault | undefined;
  /** The greeting of each of the next `slowGreetings` connections waits this long. */
  greetingDelayMs: number;
  slowGreetings: number;
  /** Tries per address so far (RCPT TO commands seen). */
  tries: Map<string, number>;
  to(address: string): AcceptedMail[];
  reset(): void;
  close(): Promise<void>;
}

export async function startFaultySmtp(): Promise<FaultySmtp> {
  const port = await freePort();
  const dataTries = new Map<string, number>();
  const smtp: FaultySmtp = {
    url: `smtp://127.0.0.1:${port}`,
    accepted: [],
    greetingDelayMs: 0,
    slowGreetings: 0,
    tries: new Map(),
    to: (address) => smtp.accepted.filter((mail) => mail.to.includes(address.toLowerCase())),
    reset() {
      smtp.accepted.length = 0;
      smtp.tries.clear();
      dataTries.clear();
      smtp.rcpt = undefined;
      smtp.data = undefined;
      smtp.greetingDelayMs = 0;
      smtp.slowGreetings = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const dropConnection = (session: SMTPServerSession) => {
    const connections = (
      server as unknown as { connections: Set<{ id: string; _socket: { destroy(): void } }> }
    ).connections;
    for (const connection of connections) if (connection.id === session.id) connection._socket.destroy();
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    maxClients: 1000,
    onConnect(_session, callback) {
      if (smtp.slowGreetings > 0) {
        smtp.slowGreetings--;
        setTimeout(() => callback(), smtp.greetingDelayMs);
        return;
      }
      callback();
    },
    onRcptTo(address, _session, callback) {
      const key = address.address.toLowerCase();
      const attempt = (smtp.tries.get(key) ?? 0) + 1;
      smtp.tries.set(key, attempt);
      const code = smtp.rcpt?.(key, attempt);
      if (code) {
        const error = new Error(code >= 500 ? 'No such mailbox' : 'Try again later') as Error & {
          responseCode: number;
        };
        error.responseCode = code;
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
        const key = to[0] ?? '';
        const attempt = (dataTries.get(key) ?? 0) + 1;
        dataTries.set(key, attempt);
        const fault = smtp.data?.(key, attempt);
        if (fault === 'hang') return;
        if (fault === 'close') return dropConnection(session);
        if (fault) {
          const error = new Error('Message refused') as Error & { responseCode: number };
          error.responseCode = fault.code;
          return callback(error);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        smtp.accepted.push({ raw, to, at: Date.now(), parsed: () => simpleParser(raw) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return smtp;
}
