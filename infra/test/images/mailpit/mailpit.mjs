// SMTP on :1025 (any sender, any recipient, no auth), messages kept in memory; HTTP on :8025:
// GET /api/v1/messages → { total, messages: [{ ID, From, To, Subject, Created }] } (newest first)
// GET /api/v1/message/ID → { ID, From, To, Subject, Date, Text, HTML }
import mailparser from 'mailparser';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import smtp from 'smtp-server';

const { SMTPServer } = smtp;
const { simpleParser } = mailparser;

const messages = [];
const address = (list) => (list?.value ?? []).map((a) => ({ Name: a.name, Address: a.address }));

new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, session, done) {
    simpleParser(stream).then(
      (mail) => {
        messages.unshift({
          ID: randomUUID(),
          From: address(mail.from)[0] ?? null,
          To: address(mail.to),
          Subject: mail.subject ?? '',
          Date: (mail.date ?? new Date()).toISOString(),
          Created: new Date().toISOString(),
          Text: mail.text ?? '',
          HTML: typeof mail.html === 'string' ? mail.html : '',
        });
        done();
      },
      (error) => done(error),
    );
  },
}).listen(1025, '0.0.0.0');

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
        messages: messages.map(({ ID, From, To, Subject, Created }) => ({ ID, From, To, Subject, Created })),
      });
    const one = /^\/api\/v1\/message\/([\w-]+)$/.exec(url.pathname);
    const found = one && messages.find((m) => m.ID === one[1]);
    if (found) return send(200, found);
    if (url.pathname === '/livez' || url.pathname === '/readyz') return send(200, { ok: true });
    send(404, { error: 'not found' });
  })
  .listen(8025, '0.0.0.0');
console.log('mail sink: SMTP :1025, HTTP :8025');
