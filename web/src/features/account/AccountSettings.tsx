import {
  passwordChangeSchema,
  describeValidationError,
  type AccountView,
  type TwoFactorSetup,
} from '@blog/contracts';
import { useEffect, useState, type FormEvent } from 'react';
import { useApi } from '../../api/ApiContext';
import {
  changePassword,
  disableTwoFactor,
  enableTwoFactor,
  getAccount,
  setUpTwoFactor,
  signOutEverywhere,
} from '../../api/auth';
import { errorMessage } from '../../api/client';
import { useSession } from '../../session/SessionContext';
import { QrCode } from './QrCode';
import './account.css';

type Message = { kind: 'success' | 'error'; text: string } | null;

function Feedback({ message }: { message: Message }) {
  return (
    <p
      role={message?.kind === 'error' ? 'alert' : 'status'}
      className={message?.kind === 'error' ? 'form-error' : 'form-success'}
    >
      {message?.text}
    </p>
  );
}

/** The signed-in person's own account: password, sessions and two-factor sign-in. */
export function AccountSettings() {
  const api = useApi();
  const [account, setAccount] = useState<AccountView | null>(null);
  const [loadError, setLoadError] = useState(false);
  useEffect(() => {
    const controller = new AbortController();
    getAccount(api, controller.signal).then(setAccount, () => {
      if (!controller.signal.aborted) setLoadError(true);
    });
    return () => controller.abort();
  }, [api]);

  return (
    <div className="account-settings">
      <PasswordCard />
      <SessionsCard />
      <section className="card" aria-labelledby="two-factor-heading">
        <h2 id="two-factor-heading">Two-factor sign-in</h2>
        {!account && !loadError && <p role="status">Loading your account...</p>}
        {loadError && (
          <p className="form-error" role="alert">
            Could not load your account.
          </p>
        )}
        {account && <TwoFactorPanel account={account} onChange={setAccount} />}
      </section>
    </div>
  );
}

function PasswordCard() {
  const api = useApi();
  const { login } = useSession();
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [message, setMessage] = useState<Message>(null);
  const [pending, setPending] = useState(false);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = passwordChangeSchema.safeParse({ currentPassword, newPassword });
    if (!parsed.success)
      return setMessage({ kind: 'error', text: describeValidationError(parsed.error).message });
    setPending(true);
    setMessage(null);
    try {
      login(await changePassword(api, parsed.data));
      setCurrent('');
      setNew('');
      setMessage({ kind: 'success', text: 'Password changed. Every other device is signed out.' });
    } catch (error) {
      setMessage({ kind: 'error', text: errorMessage(error, 'Could not change the password') });
    } finally {
      setPending(false);
    }
  };

  return (
    <section className="card" aria-labelledby="password-heading">
      <h2 id="password-heading">Change password</h2>
      <form className="form" onSubmit={onSubmit}>
        <div className="field">
          <label htmlFor="current-password">Current password</label>
          <input
            id="current-password"
            type="password"
            autoComplete="current-password"
            value={currentPassword}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="new-password">New password</label>
          <input
            id="new-password"
            type="password"
            autoComplete="new-password"
            value={newPassword}
            onChange={(e) => setNew(e.target.value)}
          />
        </div>
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Saving...' : 'Change password'}
        </button>
        <Feedback message={message} />
      </form>
    </section>
  );
}

function SessionsCard() {
  const api = useApi();
  const { login } = useSession();
  const [message, setMessage] = useState<Message>(null);
  const [pending, setPending] = useState(false);
  const onClick = async () => {
    setPending(true);
    setMessage(null);
    try {
      login(await signOutEverywhere(api));
      setMessage({ kind: 'success', text: 'Every other device is signed out.' });
    } catch (error) {
      setMessage({ kind: 'error', text: errorMessage(error, 'Could not sign out the other devices') });
    } finally {
      setPending(false);
    }
  };
  return (
    <section className="card" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Devices</h2>
      <p>Lost a laptop or a phone? Sign out everywhere: only this browser stays signed in.</p>
      <button type="button" className="button" disabled={pending} onClick={() => void onClick()}>
        Sign out everywhere else
      </button>
      <Feedback message={message} />
    </section>
  );
}

function TwoFactorPanel({
  account,
  onChange,
}: {
  account: AccountView;
  onChange(account: AccountView): void;
}) {
  const api = useApi();
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState('');
  const [message, setMessage] = useState<Message>(null);
  const [pending, setPending] = useState(false);

  const run = async (work: () => Promise<void>, failure: string) => {
    setPending(true);
    setMessage(null);
    try {
      await work();
    } catch (error) {
      setMessage({ kind: 'error', text: errorMessage(error, failure) });
    } finally {
      setPending(false);
    }
  };

  if (recoveryCodes)
    return (
      <div>
        <p role="status" className="form-success">
          Two-factor sign-in is on.
        </p>
        <p>
          Keep these recovery codes somewhere safe. Each signs you in once if you lose your phone; they are
          not shown again.
        </p>
        <ul className="recovery-codes" aria-label="Recovery codes">
          {recoveryCodes.map((c) => (
            <li key={c}>
              <code>{c}</code>
            </li>
          ))}
        </ul>
        <button type="button" className="button" onClick={() => setRecoveryCodes(null)}>
          I have saved them
        </button>
      </div>
    );

  const codeField = (
    <div className="field">
      <label htmlFor="two-factor-code">Code from your authenticator app</label>
      <input
        id="two-factor-code"
        autoComplete="one-time-code"
        inputMode="numeric"
        value={code}
        onChange={(e) => setCode(e.target.value)}
      />
    </div>
  );

  if (account.twoFactorEnabled)
    return (
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            onChange(await disableTwoFactor(api, code));
            setCode('');
            setMessage({ kind: 'success', text: 'Two-factor sign-in is off.' });
          }, 'Could not turn two-factor sign-in off');
        }}
      >
        <p>Two-factor sign-in is on: signing in asks for a code from your authenticator app.</p>
        {codeField}
        <button type="submit" className="button" disabled={pending}>
          Turn off two-factor sign-in
        </button>
        <Feedback message={message} />
      </form>
    );

  if (!setup)
    return (
      <div>
        <p>Protect your account with a code from an authenticator app as well as your password.</p>
        <button
          type="button"
          className="button"
          disabled={pending}
          onClick={() =>
            void run(async () => setSetup(await setUpTwoFactor(api)), 'Could not start the set-up')
          }
        >
          Set up two-factor sign-in
        </button>
        <Feedback message={message} />
      </div>
    );

  return (
    <form
      className="form"
      onSubmit={(event) => {
        event.preventDefault();
        void run(async () => {
          const enabled = await enableTwoFactor(api, code);
          setRecoveryCodes(enabled.recoveryCodes);
          setSetup(null);
          setCode('');
          onChange({ ...account, twoFactorEnabled: true });
        }, 'Could not turn two-factor sign-in on');
      }}
    >
      <p>Scan this code with your authenticator app, then enter the six digits it shows.</p>
      <QrCode text={setup.otpauthUrl} label="QR code for your authenticator app" />
      <p>
        Or enter this key by hand: <code className="two-factor-secret">{setup.secret}</code>
      </p>
      {codeField}
      <button type="submit" className="button" disabled={pending}>
        Turn on
      </button>
      <Feedback message={message} />
    </form>
  );
}
