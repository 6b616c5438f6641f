import { ErrorText, describeValidationError, registerSchema } from '@blog/contracts';
import { useState, type FormEvent } from 'react';
import { useApi } from '../../api/ApiContext';
import { register } from '../../api/auth';
import { errorMessage } from '../../api/client';
import { ErrorLine, SubmitButton, useSubmit } from '../../components/ui';
import { CredentialsFields } from './CredentialsFields';
import { SignInLink } from './SignInLink';
import { useSite } from '../../site/SiteContext';

/** Registration form; the same rules as the server come from @blog/contracts. */
export function RegisterPage() {
  const api = useApi();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const { pending, message, submit, fail } = useSubmit();
  const error = message?.text;
  const site = useSite();

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = registerSchema.safeParse({ username, password });
    if (!parsed.success) return fail(describeValidationError(parsed.error).message);
    void submit(
      async () => {
        const result = await register(api, parsed.data);
        setDone(result?.message || `Account ${parsed.data.username} created.`);
      },
      { failure: (caught) => errorMessage(caught, ErrorText.registrationFailed) },
    );
  };

  if (!site.registrationOpen) {
    return (
      <section className="card form-card" aria-labelledby="register-heading">
        <h1 id="register-heading">Create an account</h1>
        <p role="status">
          {ErrorText.registrationClosed}. The owner of this blog is not taking new accounts.
        </p>
        <p>
          Already have one? <SignInLink to="/login">Sign in</SignInLink>
        </p>
      </section>
    );
  }

  if (done !== null) {
    return (
      <section className="card form-card" aria-labelledby="register-heading">
        <h1 id="register-heading">Create an account</h1>
        <p className="form-success" role="status">
          {done}
        </p>
        <p>
          <SignInLink to="/login">Sign in</SignInLink>
        </p>
      </section>
    );
  }

  return (
    <section className="card form-card" aria-labelledby="register-heading">
      <h1 id="register-heading">Create an account</h1>
      <form className="form" onSubmit={onSubmit}>
        <CredentialsFields
          idPrefix="register"
          username={username}
          password={password}
          onUsername={setUsername}
          onPassword={setPassword}
          passwordAutoComplete="new-password"
          errorId={error ? 'register-error' : undefined}
        />
        <ErrorLine id="register-error" error={error} />
        <SubmitButton pending={pending}>Register</SubmitButton>
      </form>
      <p className="form-aside">
        Already have an account? <SignInLink to="/login">Sign in</SignInLink>
      </p>
    </section>
  );
}
