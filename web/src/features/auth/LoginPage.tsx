import { ErrorText, describeValidationError, isAdmin, loginSchema } from '@blog/contracts';
import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { useApi } from '../../api/ApiContext';
import { login, needsTwoFactor } from '../../api/auth';
import { errorMessage } from '../../api/client';
import { ErrorLine, Field, SubmitButton, useSubmit } from '../../components/ui';
import { useSession } from '../../session/SessionContext';
import { CredentialsFields } from './CredentialsFields';
import { nextPath } from './nextPath';
import { SignInLink } from './SignInLink';

/** Sign-in screen (docs/product.md#screens): after success admins go to /admin, everyone else to /. */
export function LoginPage() {
  const api = useApi();
  const session = useSession();
  const navigate = useNavigate();
  // "Sign in to comment" comes back to the post it left.
  const next = nextPath(useSearchParams()[0].get('next'));
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  /** The second step: the password was right, the account asks for its two-factor code. */
  const [askCode, setAskCode] = useState(false);
  const { pending, message, setMessage, submit, fail } = useSubmit();
  const error = message?.text;

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = loginSchema.safeParse({ username, password, ...(askCode ? { code } : {}) });
    if (!parsed.success) return fail(describeValidationError(parsed.error).message);
    void submit(
      async () => {
        const result = await login(api, parsed.data);
        session.login(result);
        navigate(next ?? (isAdmin(result.role) ? '/admin' : '/'), { replace: true });
      },
      {
        failure: (caught) => {
          if (!needsTwoFactor(caught) || askCode) return errorMessage(caught, ErrorText.loginFailed);
          setAskCode(true);
          return null;
        },
        leavesPage: true,
      },
    );
  };

  if (askCode)
    return (
      <section className="card form-card" aria-labelledby="login-heading">
        <h1 id="login-heading">Two-factor sign-in</h1>
        <form className="form" onSubmit={onSubmit}>
          <Field id="login-code" label="Code from your authenticator app, or a recovery code">
            <input
              id="login-code"
              name="code"
              autoComplete="one-time-code"
              inputMode="text"
              autoFocus
              required
              value={code}
              onChange={(event) => setCode(event.target.value)}
              aria-describedby={error ? 'login-error' : undefined}
              aria-invalid={error ? true : undefined}
            />
          </Field>
          <ErrorLine id="login-error" error={error} />
          <SubmitButton pending={pending} pendingLabel="Checking...">
            Verify
          </SubmitButton>
          <button
            type="button"
            className="button button-secondary"
            onClick={() => {
              setAskCode(false);
              setCode('');
              setMessage(null);
            }}
          >
            Back
          </button>
        </form>
      </section>
    );

  return (
    <section className="card form-card" aria-labelledby="login-heading">
      <h1 id="login-heading">Sign in to your account</h1>
      <form className="form" onSubmit={onSubmit}>
        <CredentialsFields
          idPrefix="login"
          username={username}
          password={password}
          onUsername={setUsername}
          onPassword={setPassword}
          passwordAutoComplete="current-password"
          errorId={error ? 'login-error' : undefined}
        />
        <ErrorLine id="login-error" error={error} />
        <SubmitButton pending={pending} pendingLabel="Signing in...">
          Sign in
        </SubmitButton>
      </form>
      <p className="form-aside">
        No account yet? <SignInLink to="/register">Create one</SignInLink>
      </p>
    </section>
  );
}
