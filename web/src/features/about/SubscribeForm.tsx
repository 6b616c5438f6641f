import { useState, type FormEvent } from 'react';
import { useApi } from '../../api/ApiContext';
import { subscribe } from '../../api/mail';
import { useFormStatus } from './useFormStatus';
import { Field, SubmitButton } from '../../components/ui';

/** Weekly digest subscription (docs/product.md#screens, #error-texts); the server then e-mails a confirmation link. */
export function SubscribeForm() {
  const api = useApi();
  const { status, run, postedFields } = useFormStatus('subscribe');
  const [email, setEmail] = useState(postedFields.email ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(
      () => subscribe(api, email),
      () => setEmail(''),
    );
  };
  return (
    <section id="subscribe" className="card form-section" aria-labelledby="subscribe-heading">
      <h2 id="subscribe-heading">Subscribe</h2>
      <p>Get a weekly e-mail with the new posts. You can unsubscribe from any of them.</p>
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
