// Mail benchmark: the time to send the weekly digest to 10,000 confirmed
// subscribers through a local SMTP server (smtp-server in this process, accepting every
// message), timed from POST /api/admin/digest until the last message is accepted.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { seedPosts } from '../seed.mjs';
import { freePort, startStack } from './stack.mjs';

const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 10_000);

/** A local SMTP sink that counts what it accepts. */
async function startSink(port) {
  const sink = { messages: 0, bytes: 0, recipients: new Set(), lastAt: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    maxClients: 100,
    onData(stream, session, callback) {
      stream.on('data', (chunk) => (sink.bytes += chunk.length));
      stream.on('end', () => {
        sink.messages++;
        for (const rcpt of session.envelope.rcptTo) sink.recipients.add(rcpt.address);
        sink.lastAt = performance.now();
        callback();
      });
    },
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  sink.close = () => new Promise((resolve) => server.close(resolve));
  return sink;
}

export async function benchMail() {
  const dataDir = await mkdtemp(join(tmpdir(), 'blog-bench-mail-'));
  const [port, pgPort, smtpPort] = [await freePort(), await freePort(), await freePort()];
  const sink = await startSink(smtpPort);
  const stack = await startStack({
    dataDir,
    port,
    env: {
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      PG_PORT: String(pgPort),
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      SITE_URL: 'https://blog.example',
    },
  });
  try {
    const password = (await readFile(join(dataDir, 'postgres-password'), 'utf8')).trim();
    const databaseUrl = `postgres://postgres:${password}@127.0.0.1:${pgPort}/blog`;
    await seedPosts(databaseUrl, 12); // dated over the last few hours: this week's posts
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(
      `INSERT INTO mail.subscribers (email, status, confirmed_at)
       SELECT 'reader' || g || '@bench.example', 'confirmed', now() FROM generate_series(1, $1::int) AS g`,
      [SUBSCRIBERS],
    );
    await client.end();

    const login = await fetch(`${stack.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const { token } = await login.json();
    const started = performance.now();
    const response = await fetch(`${stack.baseUrl}/api/admin/digest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    const result = await response.json();
    if (response.status !== 200)
      throw new Error(`digest answered ${response.status}: ${JSON.stringify(result)}`);
    const answered = performance.now();
    while (sink.messages < result.sent) await new Promise((r) => setTimeout(r, 10));
    const seconds = (Math.max(sink.lastAt, answered) - started) / 1000;
    return {
      subscribers: SUBSCRIBERS,
      sent: result.sent,
      postsInDigest: result.posts,
      smtpAccepted: sink.messages,
      distinctRecipients: sink.recipients.size,
      seconds: Math.round(seconds * 100) / 100,
      emailsPerSecond: Math.round(sink.messages / seconds),
      averageMessageKiB: Math.round((sink.bytes / Math.max(1, sink.messages) / 1024) * 10) / 10,
    };
  } finally {
    await stack.stop();
    await sink.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
