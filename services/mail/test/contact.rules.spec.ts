import { BackgroundTasks } from '../src/common/background-tasks.js';
import type { FormLimits } from '../src/common/form-limits.js';
import type { SiteTitle } from '../src/common/site-title.js';
import { loadMailConfig } from '../src/config.js';
import { ContactService } from '../src/contact/contact.service.js';
import type { MailTransport, OutgoingMail } from '../src/transport/mail-transport.js';
import { InMemoryContactRepository } from './support/in-memory-contact.repository.js';

/** Contact messages' rules against an in-memory repository: stored first, sent, retried until sent. */
describe('contact rules', () => {
  const config = loadMailConfig({
    DATABASE_URL: 'postgres://unused@localhost/unused',
    SITE_URL: 'https://blog.example',
    MAIL_RETRY_INTERVAL_MS: '1000',
  });
  const form = {
    name: 'Jane Reader',
    email: 'jane@example.com',
    subject: 'Your sourdough post',
    message: 'Lovely crumb.',
    ip: '198.51.100.7',
  };
  let store: InMemoryContactRepository;
  let background: BackgroundTasks;
  let sent: OutgoingMail[];
  let smtpDown: boolean;
  let admitted: string[];
  let contact: ContactService;

  beforeEach(() => {
    store = new InMemoryContactRepository();
    background = new BackgroundTasks();
    sent = [];
    smtpDown = false;
    admitted = [];
    const transport = {
      send: async (mail: OutgoingMail) => {
        if (smtpDown) throw new Error('connect ECONNREFUSED');
        sent.push(mail);
        return { messageId: '<1@test>' };
      },
    };
    const limits = { admit: async (name: string, ip: string) => void admitted.push(`${name} ${ip}`) };
    contact = new ContactService(
      store,
      limits as unknown as FormLimits,
      transport as unknown as MailTransport,
      background,
      config,
      { current: async () => 'My blog' } as SiteTitle,
    );
  });

  it('stores the message, counts it against the address, then e-mails it', async () => {
    expect(await contact.submit(form)).toMatchObject({ success: true });
    await background.drain();
    expect(admitted).toEqual(['contact 198.51.100.7']);
    expect(store.messages[0]).toMatchObject({ status: 'sent', attempts: 1, lastError: null });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.replyTo).toMatchObject({ address: 'jane@example.com' });
  });

  it('a filled honeypot gets the usual answer and nothing is counted, stored or sent', async () => {
    expect(await contact.submit({ ...form, website: 'http://spam.example' })).toMatchObject({
      success: true,
    });
    await background.drain();
    expect([admitted, store.messages, sent]).toEqual([[], [], []]);
  });

  it('a message that could not be sent stays due with its error and goes out on a later sweep', async () => {
    smtpDown = true;
    await contact.submit(form);
    await background.drain();
    const message = store.messages[0]!;
    expect(message).toMatchObject({ status: 'pending', lastError: 'connect ECONNREFUSED' });
    expect(await contact.retryDue()).toBe(0); // its retry delay has not passed

    smtpDown = false;
    message.nextAttemptAt = new Date(Date.now() - 1);
    expect(await contact.retryDue()).toBe(1);
    expect(message).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
    expect((await contact.list({ page: 1, limit: 10 })).items).toMatchObject([{ id: 1, status: 'sent' }]);
  });
});
