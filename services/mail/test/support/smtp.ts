import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

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
  received: ReceivedMail[];
  /** Milliseconds each message waits before the server accepts it. */
  delayMs: number;
  /** Recipients refused with a temporary error (451) while listed. */
  refuse: Set<string>;
  /** Called with each message as it arrives (before it is accepted). */
  onMessage?: (mail: ReceivedMail) => void;
  /** Resolves once `count` messages (matching `filter`) arrived; rejects after `timeoutMs`. */
  waitFor(
    count: number,
    filter?: (mail: ReceivedMail) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedMail[]>;
  to(address: string): ReceivedMail[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A real SMTP server (the smtp-server package) on 127.0.0.1 that keeps every message it accepts, parsed. */
export async function startTestSmtp(
  port: number,
  options: Partial<SMTPServerOptions> = {},
): Promise<TestSmtp> {
  let server: SMTPServer | null = null;
  const smtp: TestSmtp = {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received: [],
    refuse: new Set(),
    delayMs: 0,
    async waitFor(count, filter = () => true, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = smtp.received.filter(filter);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline) {
          throw new Error(`expected ${count} e-mails, got ${matching.length} after ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    to(address) {
      return smtp.received.filter((mail) => mail.to.includes(address.toLowerCase()));
    },
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
              const parsed = await simpleParser(raw);
              const mail: ReceivedMail = {
                parsed,
                raw,
                to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
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
              if (smtp.delayMs) await new Promise((resolve) => setTimeout(resolve, smtp.delayMs));
              smtp.onMessage?.(mail);
              smtp.received.push(mail);
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
