import { useState, type FormEvent } from 'react';
import { useApi } from '../../api/ApiContext';
import { sendContact } from '../../api/mail';
import { Field, SubmitButton } from '../../components/ui';
import { useFormStatus } from './useFormStatus';

const empty = { name: '', email: '', subject: '', message: '' };

/** The contact form (docs/product.md#screens, #limits-and-timings, #error-texts): every field required, the e-mail of e-mail type. */
export function ContactForm() {
  const api = useApi();
  const { status, run, postedFields } = useFormStatus('contact');
  const [fields, setFields] = useState(() => ({ ...empty, ...postedFields }));
  const [website, setWebsite] = useState('');
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
      {/* Without JavaScript the form posts to the About page, which answers with its texts. */}
      <form className="form" method="post" action="/about#contact" onSubmit={submit}>
        <input type="hidden" name="form" value="contact" />
        <ContactField
          label="Name"
          name="name"
          maxLength={100}
          autoComplete="name"
          value={fields.name}
          onChange={set('name')}
        />
        <ContactField
          label="Email"
          name="email"
          type="email"
          maxLength={254}
          autoComplete="email"
          value={fields.email}
          onChange={set('email')}
        />
        <ContactField
          label="Subject"
          name="subject"
          maxLength={200}
          value={fields.subject}
          onChange={set('subject')}
        />
        <Field id="contact-message" label="Message">
          <textarea
            id="contact-message"
            name="message"
            required
            rows={4}
            maxLength={5000}
            value={fields.message}
            onChange={set('message')}
          />
        </Field>
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
        <SubmitButton pending={status === 'sending'} pendingLabel="Sending...">
          Send Message
        </SubmitButton>
        <p role="status" className={status === 'error' ? 'form-error' : 'form-success'}>
          {status === 'success' && 'Message sent successfully!'}
          {status === 'error' && 'Failed to send message. Please try again.'}
        </p>
      </form>
    </section>
  );
}

interface ContactFieldProps {
  label: string;
  name: string;
  maxLength: number;
  value: string;
  onChange(event: { target: { value: string } }): void;
  type?: 'text' | 'email';
  autoComplete?: string;
}

/** A required one-line field with its label. */
function ContactField({ label, name, type = 'text', ...input }: ContactFieldProps) {
  return (
    <Field id={`contact-${name}`} label={label}>
      <input id={`contact-${name}`} name={name} type={type} required {...input} />
    </Field>
  );
}
