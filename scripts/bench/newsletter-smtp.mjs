// The newsletter bench's SMTP server (`npm run bench -- newsletter`): smtp-server on a loopback
// port, in its own process (child_process.fork, the port as argument) so the stack's CPU figures
// leave its work out. It accepts every message and counts them: messages, bytes, distinct
// recipients, recipients that got more than one, the first and last arrival. The parent asks over
// IPC: { cmd: 'progress' } and { cmd: 'stop' }.
import { SMTPServer } from 'smtp-server';

const PORT = Number(process.argv[2]);
const perRecipient = new Map();
let messages = 0;
let bytes = 0;
let firstAt = null;
let lastAt = null;

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  maxClients: 1000,
  onData(stream, session, callback) {
    stream.on('data', (chunk) => (bytes += chunk.length));
    stream.on('end', () => {
      messages++;
      for (const rcpt of session.envelope.rcptTo) {
        const address = rcpt.address.toLowerCase();
        perRecipient.set(address, (perRecipient.get(address) ?? 0) + 1);
      }
      lastAt = Date.now();
      firstAt ??= lastAt;
      callback();
    });
  },
});

server.on('error', (error) => process.send?.({ error: error.message }));
server.listen(PORT, '127.0.0.1', () => process.send({ ready: true }));

process.on('message', (message) => {
  if (message.cmd === 'progress') {
    let twice = 0;
    for (const n of perRecipient.values()) if (n > 1) twice++;
    process.send({ messages, bytes, recipients: perRecipient.size, twice, firstAt, lastAt });
  } else if (message.cmd === 'stop') {
    server.close(() => process.exit(0));
  }
});
