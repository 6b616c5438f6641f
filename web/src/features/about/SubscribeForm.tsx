import { useState, type FormEvent } from 'react';
import { useApi } from '../../api/ApiContext';
import { subscribe } from '../../api/mail';
import { useFormStatus } from './useFormStatus';
import { Field, SubmitButton } from '../../components/ui';
import type { SubscriberFrequency } from '../../api/mail';

const FREQUENCIES: [SubscriberFrequency, string][] = [
  ['each-post', 'Every new post'],
  ['weekly', 'A weekly digest'],
];

/**
 * Subscription by e-mail, every new post or a weekly digest (docs/product.md#about-contact-and-subscribe);
 * the server then e-mails a confirmation link.
 */
export function SubscribeForm() {
  const api = useApi();
  const { status, run, postedFields } = useFormStatus('subscribe');
  const [email, setEmail] = useState(postedFields.email ?? '');
  const [frequency, setFrequency] = useState<SubscriberFrequency>(
    postedFields.frequency === 'each-post' ? 'each-post' : 'weekly',
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(
      () => subscribe(api, email, frequency),
      () => setEmail(''),
    );
  };
  return (
    <section id="subscribe" className="card form-section" aria-labelledby="subscribe-heading">
      <h2 id="subscribe-heading">Subscribe</h2>
      <p>Get the new posts by e-mail. Every e-mail has a link to change how often, or to unsubscribe.</p>
      <form className="form form-inline" method="post" action="/about#subscribe" onSubmit={submit}>
        <input type="hidden" name="form" value="subscribe" />
        <Field id="subscribe-email" label="Email">
          <input
            id="subscribe-email"
            name="email"
            type="email"
            required
            maxLength={254}
            autoComplete="email"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </Field>
        <fieldset className="subscribe-frequency">
          <legend>How often</legend>
          {FREQUENCIES.map(([value, label]) => (
            <label key={value}>
              <input
                type="radio"
                name="frequency"
                value={value}
                checked={frequency === value}
                onChange={() => setFrequency(value)}
              />{' '}
              {label}
            </label>
          ))}
        </fieldset>
        <SubmitButton pending={status === 'sending'} pendingLabel="Subscribing...">
          Subscribe
        </SubmitButton>
        <p role="status" className={status === 'error' ? 'form-error' : 'form-success'}>
          {status === 'success' && 'Successfully subscribed!'}
          {status === 'error' && 'Failed to subscribe. Please try again.'}
        </p>
      </form>
    </section>
  );
}
