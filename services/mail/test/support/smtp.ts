import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { containersEnabled, freePort, startTestContainer, TEST_IMAGES } from '@blog/server-kit/testing';

export interface ReceivedMail {
  parsed: ParsedMail;
  raw: string;
  /** RCPT TO addresses of the SMTP envelope. */
  to: string[];
  from: string;
  header(name: string): string | undefined;
}

export interface TestSmtp {
  port: number;
  url: string;
  /** Every message accepted so far, oldest first (a container's are read back within ~50 ms). */
  received: ReceivedMail[];
  /** Resolves once `count` messages (matching `filter`) arrived; rejects after `timeoutMs`. */
  waitFor(
    count: number,
    filter?: (mail: ReceivedMail) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedMail[]>;
  to(address: string): ReceivedMail[];
  /** Stops accepting (a relay that is down); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good. */
  close(): Promise<void>;
}

/** The in-process server, which can also refuse, delay and watch messages (a Mailpit container cannot). */
export interface InProcessSmtp extends TestSmtp {
  /** Milliseconds each message waits before the server accepts it. */
  delayMs: number;
  /** Recipients refused with a temporary error (451) while listed. */
  refuse: Set<string>;
  /** Called with each message as it arrives (before it is accepted). */
  onMessage?: (mail: ReceivedMail) => void;
}

function receivedMail(raw: string, parsed: ParsedMail, to: string[], from: string): ReceivedMail {
  return {
    parsed,
    raw,
    to: to.map((address) => address.toLowerCase()),
    from,
    header: (name) => {
      const line = parsed.headerLines.find((h) => h.key === name.toLowerCase());
      return line
        ? line.line
            .slice(line.line.indexOf(':') + 1)
            .replace(/\r?\n\s+/g, ' ')
            .trim()
        : undefined;
    },
  };
}

function sinkMethods(received: ReceivedMail[]): Pick<TestSmtp, 'waitFor' | 'to'> {
  return {
    async waitFor(count, filter = () => true, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter(filter);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline) {
          throw new Error(`expected ${count} e-mails, got ${matching.length} after ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    to: (address) => received.filter((mail) => mail.to.includes(address.toLowerCase())),
  };
}

/**
 * A real SMTP server on a free port of 127.0.0.1 that keeps every message it accepts, parsed: the
 * compose file's Mailpit image in a container when the run has a container engine (messages
 * read back through Mailpit's HTTP API), else the in-process server below.
 */
export async function startTestSmtp(): Promise<TestSmtp> {
  return containersEnabled() ? startMailpitSmtp() : startInProcessSmtp();
}

interface MailpitAddress {
  Address: string;
}
interface MailpitSummary {
  ID: string;
  From: MailpitAddress | null;
  To: MailpitAddress[];
  Cc?: MailpitAddress[] | null;
  Bcc?: MailpitAddress[] | null;
}

async function startMailpitSmtp(): Promise<TestSmtp> {
  const container = await startTestContainer({ image: TEST_IMAGES.smtp, ports: [1025, 8025] });
  const smtpPort = container.port(1025);
  const api = `http://127.0.0.1:${container.port(8025)}/api/v1`;
  const received: ReceivedMail[] = [];
  const seen = new Set<string>();
  let reading = false;
  // Reads new messages back in arrival order; Mailpit lists the envelope's other recipients as Bcc.
  const readNew = async () => {
    if (reading) return;
    reading = true;
    try {
      const list = (await (await fetch(`${api}/messages?limit=1000`)).json()) as {
        messages: MailpitSummary[];
      };
      for (const summary of list.messages.reverse()) {
        if (seen.has(summary.ID)) continue;
        const raw = await (await fetch(`${api}/message/${summary.ID}/raw`)).text();
        const to = [...summary.To, ...(summary.Cc ?? []), ...(summary.Bcc ?? [])].map((a) => a.Address);
        received.push(receivedMail(raw, await simpleParser(raw), to, summary.From?.Address ?? ''));
        seen.add(summary.ID);
      }
    } catch {
      // stopped for a test of the relay being down; read again once it is back
    } finally {
      reading = false;
    }
  };
  let reader: NodeJS.Timeout | undefined = setInterval(() => void readNew(), 50);
  return {
    port: smtpPort,
    url: `smtp://127.0.0.1:${smtpPort}`,
    received,
    ...sinkMethods(received),
    stop: container.stop,
    start: container.start,
    async close() {
      clearInterval(reader);
      reader = undefined;
      await container.close();
    },
  };
}

/** The smtp-server package in this process (also used for TLS and the fault tests). */
export async function startInProcessSmtp(options: Partial<SMTPServerOptions> = {}): Promise<InProcessSmtp> {
  const port = await freePort();
  let server: SMTPServer | null = null;
  const received: ReceivedMail[] = [];
  const smtp: InProcessSmtp = {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuse: new Set(),
    delayMs: 0,
    ...sinkMethods(received),
    async start() {
      server = new SMTPServer({
        authOptional: true,
        disabledCommands: ['AUTH', 'STARTTLS'],
        logger: false,
        ...options,
        onRcptTo(address, _session, callback) {
          if (smtp.refuse.has(address.address.toLowerCase())) {
            const error = new Error('Mailbox busy, try again later') as Error & { responseCode: number };
            error.responseCode = 451;
            return callback(error);
          }
          callback();
        },
        onData(stream, session, callback) {
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', async () => {
            try {
              const raw = Buffer.concat(chunks).toString('utf8');
              const mail = receivedMail(
                raw,
                await simpleParser(raw),
                session.envelope.rcptTo.map((r) => r.address),
                session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              );
              if (smtp.delayMs) await new Promise((resolve) => setTimeout(resolve, smtp.delayMs));
              smtp.onMessage?.(mail);
              received.push(mail);
              callback();
            } catch (error) {
              callback(error as Error);
            }
          });
        },
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, '127.0.0.1', () => resolve());
      });
    },
    async stop() {
      const closing = server;
      server = null;
      if (!closing) return;
      // Drop open (pooled) connections at once, as a crashed server would.
      const connections = (closing as unknown as { connections?: Set<{ close(): void }> }).connections;
      for (const connection of connections ?? []) connection.close();
      await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
    close: () => smtp.stop(),
  };
  await smtp.start();
  return smtp;
}

/** The first link in a text body that starts with `prefix`. */
export function linkIn(mail: ReceivedMail, prefix: string): string {
  const text = mail.parsed.text ?? '';
  const start = text.indexOf(prefix);
  if (start < 0) throw new Error(`no link starting with ${prefix} in:\n${text}`);
  return text.slice(start).split(/\s/)[0]!;
}
