import {
  passwordChangeSchema,
  describeValidationError,
  ErrorText,
  twoFactorConfirmSchema,
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
  renewRecoveryCodes,
  setUpTwoFactor,
  signOutEverywhere,
} from '../../api/auth';
import { ApiError, errorMessage } from '../../api/client';
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

/** The time of day a lock ends, in the reader's own clock (the account page is not server-rendered). */
const timeOfDay = (iso: string) =>
  new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

function TwoFactorPanel({
  account,
  onChange,
}: {
  account: AccountView;
  onChange(account: AccountView): void;
}) {
  const api = useApi();
  const { login } = useSession();
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<{ codes: string[]; renewed: boolean } | null>(null);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [message, setMessage] = useState<Message>(null);
  const [pending, setPending] = useState(false);

  const run = async (work: () => Promise<void>, failure: string) => {
    setPending(true);
    setMessage(null);
    try {
      await work();
    } catch (error) {
      if (error instanceof ApiError && error.status === 429) {
        // Too many wrong codes: the account says until when (the server's clock decides).
        const locked = await getAccount(api).catch(() => null);
        if (locked) onChange(locked);
        const until = locked?.codeLockedUntil;
        setMessage({
          kind: 'error',
          text: until
            ? `${ErrorText.twoFactorLocked} Codes are accepted again at ${timeOfDay(until)}.`
            : errorMessage(error, failure),
        });
      } else setMessage({ kind: 'error', text: errorMessage(error, failure) });
    } finally {
      setPending(false);
    }
  };
  /** The password and code as the server reads them; a 400 naming the field otherwise. */
  const confirmation = () => {
    const parsed = twoFactorConfirmSchema.safeParse({ password, code });
    if (parsed.success) return parsed.data;
    throw new ApiError(400, describeValidationError(parsed.error).message);
  };
  const clearFields = () => {
    setPassword('');
    setCode('');
  };

  if (recoveryCodes)
    return (
      <div>
        <p role="status" className="form-success">
          {recoveryCodes.renewed
            ? 'New recovery codes: the old ones no longer work.'
            : 'Two-factor sign-in is on.'}
        </p>
        <p>
          Keep these recovery codes somewhere safe. Each signs you in once if you lose your phone; they are
          not shown again.
        </p>
        <ul className="recovery-codes" aria-label="Recovery codes">
          {recoveryCodes.codes.map((c) => (
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

  const lockLine = account.codeLockedUntil && (
    <p className="form-error" data-testid="two-factor-lock">
      Too many wrong codes: two-factor codes for this account are refused until{' '}
      {timeOfDay(account.codeLockedUntil)}.
    </p>
  );
  const confirmFields = (codeLabel: string) => (
    <>
      <div className="field">
        <label htmlFor="two-factor-password">Your password</label>
        <input
          id="two-factor-password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="two-factor-code">{codeLabel}</label>
        <input
          id="two-factor-code"
          autoComplete="one-time-code"
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
      </div>
    </>
  );

  if (account.twoFactorEnabled)
    return (
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          // Enter asks for new recovery codes (the first button); turning off takes its own button.
          const turnOff = (event.nativeEvent as SubmitEvent).submitter?.getAttribute('value') === 'off';
          if (turnOff)
            void run(async () => {
              // This browser keeps its session with the new token; older ones stop working.
              const { token, ...view } = await disableTwoFactor(api, confirmation());
              login({ token, username: view.username, role: view.role });
              onChange(view);
              clearFields();
              setMessage({
                kind: 'success',
                text: 'Two-factor sign-in is off. Every other device is signed out.',
              });
            }, 'Could not turn two-factor sign-in off');
          else
            void run(async () => {
              const renewed = await renewRecoveryCodes(api, confirmation());
              clearFields();
              setRecoveryCodes({ codes: renewed.recoveryCodes, renewed: true });
            }, 'Could not make new recovery codes');
        }}
      >
        <p>
          Two-factor sign-in is on: signing in asks for a code from your authenticator app. Changing it asks
          for your password and a code (or a recovery code).
        </p>
        {lockLine}
        {confirmFields('Code from your authenticator app or a recovery code')}
        <div className="form-actions">
          <button type="submit" className="button" value="renew" disabled={pending}>
            Get new recovery codes
          </button>
          <button type="submit" className="button" value="off" disabled={pending}>
            Turn off two-factor sign-in
          </button>
        </div>
        <Feedback message={message} />
      </form>
    );

  if (!setup)
    return (
      <div>
        <p>Protect your account with a code from an authenticator app as well as your password.</p>
        {lockLine}
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
          const enabled = await enableTwoFactor(api, confirmation());
          setRecoveryCodes({ codes: enabled.recoveryCodes, renewed: false });
          setSetup(null);
          clearFields();
          onChange({ ...account, twoFactorEnabled: true, codeLockedUntil: null });
        }, 'Could not turn two-factor sign-in on');
      }}
    >
      <p>Scan this code with your authenticator app, then enter the six digits it shows and your password.</p>
      <QrCode text={setup.otpauthUrl} label="QR code for your authenticator app" />
      <p>
        Or enter this key by hand: <code className="two-factor-secret">{setup.secret}</code>
      </p>
      {lockLine}
      {confirmFields('Code from your authenticator app')}
      <button type="submit" className="button" disabled={pending}>
        Turn on
      </button>
      <Feedback message={message} />
    </form>
  );
}
