import { useState, type FormEvent } from 'react';
import { useApi } from '../../api/ApiContext';
import { sendContact } from '../../api/mail';
import { useFormStatus } from './useFormStatus';

const empty = { name: '', email: '', subject: '', message: '' };

/** The contact form (SPEC.md §2, §5, §8): every field required, the e-mail of e-mail type. */
export function ContactForm() {
  const api = useApi();
  const [fields, setFields] = useState(empty);
  const [website, setWebsite] = useState('');
  const { status, run } = useFormStatus();
  const set = (name: keyof typeof empty) => (event: { target: { value: string } }) =>
    setFields((current) => ({ ...current, [name]: event.target.value }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(
      () => sendContact(api, { ...fields, website }),
      () => setFields(empty),
    );
  };

  return (
    <section id="contact" className="card form-section" aria-labelledby="contact-heading">
      <h2 id="contact-heading">Contact</h2>
      <form className="form" onSubmit={submit}>
        <div className="field">
          <label htmlFor="contact-name">Name</label>
          <input
            id="contact-name"
            name="name"
            required
            maxLength={100}
            autoComplete="name"
            value={fields.name}
            onChange={set('name')}
          />
        </div>
        <div className="field">
          <label htmlFor="contact-email">Email</label>
          <input
            id="contact-email"
            name="email"
            type="email"
            required
            maxLength={254}
            autoComplete="email"
            value={fields.email}
            onChange={set('email')}
          />
        </div>
        <div className="field">
          <label htmlFor="contact-subject">Subject</label>
          <input
            id="contact-subject"
            name="subject"
            required
            maxLength={200}
            value={fields.subject}
            onChange={set('subject')}
          />
        </div>
        <div className="field">
          <label htmlFor="contact-message">Message</label>
          <textarea
            id="contact-message"
            name="message"
            required
            rows={4}
            maxLength={5000}
            value={fields.message}
            onChange={set('message')}
          />
        </div>
        {/* Hidden from people; a bot that fills it is answered and ignored by the server. */}
        <div className="honeypot" aria-hidden="true">
          <label htmlFor="contact-website">Website</label>
          <input
            id="contact-website"
            name="website"
            tabIndex={-1}
            autoComplete="off"
            value={website}
            onChange={(e) => setWebsite(e.target.value)}
          />
        </div>
        <button type="submit" className="button" disabled={status === 'sending'}>
          {status === 'sending' ? 'Sending...' : 'Send Message'}
        </button>
        <p role="status" className={status === 'error' ? 'form-error' : 'form-success'}>
          {status === 'success' && 'Message sent successfully!'}
          {status === 'error' && 'Failed to send message. Please try again.'}
        </p>
      </form>
    </section>
  );
}
