// SMTP on :1025 (any sender, any recipient, no auth), messages kept in memory; HTTP on :8025:
// GET /api/v1/messages → { total, messages: [{ ID, From, To, Cc, Bcc, Subject, Created }] } (newest first;
//   Bcc: the envelope's recipients named in no To or Cc header, as Mailpit lists them)
// GET /api/v1/message/ID → the summary plus Date, Text, HTML; GET /api/v1/message/ID/raw → the message source
import mailparser from 'mailparser';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import smtp from 'smtp-server';

const { SMTPServer } = smtp;
const { simpleParser } = mailparser;

const messages = [];
const address = (list) =>
  [list ?? []]
    .flat()
    .flatMap((l) => l.value)
    .map((a) => ({ Name: a.name, Address: a.address }));
const summary = ({ ID, From, To, Cc, Bcc, Subject, Created }) => ({
  ID,
  From,
  To,
  Cc,
  Bcc,
  Subject,
  Created,
});

new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, session, done) {
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('end', () => keep(Buffer.concat(chunks), session.envelope.rcptTo, done));
  },
}).listen(1025, '0.0.0.0');

function keep(raw, envelope, done) {
  simpleParser(raw).then(
    (mail) => {
      const To = address(mail.to);
      const Cc = address(mail.cc);
      const named = new Set([...To, ...Cc].map((a) => a.Address.toLowerCase()));
      messages.unshift({
        ID: randomUUID(),
        From: address(mail.from)[0] ?? null,
        To,
        Cc,
        Bcc: envelope
          .filter((r) => !named.has(r.address.toLowerCase()))
          .map((r) => ({ Name: '', Address: r.address })),
        raw,
        Subject: mail.subject ?? '',
        Date: (mail.date ?? new Date()).toISOString(),
        Created: new Date().toISOString(),
        Text: mail.text ?? '',
        HTML: typeof mail.html === 'string' ? mail.html : '',
      });
      // One line a message, so a test that misses one can tell whether it came.
      console.log(`kept: to ${envelope.map((r) => r.address).join(', ')}: ${mail.subject ?? ''}`);
      done();
    },
    (error) => done(error),
  );
}

http
  .createServer((req, res) => {
    const send = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/api/v1/messages')
      return send(200, {
        total: messages.length,
        messages: messages.map(summary),
      });
    const one = /^\/api\/v1\/message\/([\w-]+)(\/raw)?$/.exec(url.pathname);
    const found = one && messages.find((m) => m.ID === one[1]);
    if (found && one[2]) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(found.raw);
    }
    if (found) return send(200, { ...summary(found), Date: found.Date, Text: found.Text, HTML: found.HTML });
    if (url.pathname === '/livez' || url.pathname === '/readyz') return send(200, { ok: true });
    send(404, { error: 'not found' });
  })
  .listen(8025, '0.0.0.0');
console.log('mail sink: SMTP :1025, HTTP :8025');
