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
import { ErrorLine, Field, StatusLine, SubmitButton, useSubmit } from '../../components/ui';
import { useSession } from '../../session/SessionContext';
import { QrCode } from './QrCode';
import './account.css';

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
        {loadError && <ErrorLine error="Could not load your account." />}
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
  const { pending, message, submit, fail } = useSubmit();

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = passwordChangeSchema.safeParse({ currentPassword, newPassword });
    if (!parsed.success) return fail(describeValidationError(parsed.error).message);
    void submit(
      async () => {
        login(await changePassword(api, parsed.data));
        setCurrent('');
        setNew('');
        return 'Password changed. Every other device is signed out.';
      },
      { failure: (error) => errorMessage(error, 'Could not change the password') },
    );
  };

  return (
    <section className="card" aria-labelledby="password-heading">
      <h2 id="password-heading">Change password</h2>
      <form className="form" onSubmit={onSubmit}>
        <Field id="current-password" label="Current password">
          <input
            id="current-password"
            type="password"
            autoComplete="current-password"
            value={currentPassword}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </Field>
        <Field id="new-password" label="New password">
          <input
            id="new-password"
            type="password"
            autoComplete="new-password"
            value={newPassword}
            onChange={(e) => setNew(e.target.value)}
          />
        </Field>
        <SubmitButton pending={pending} pendingLabel="Saving...">
          Change password
        </SubmitButton>
        <StatusLine message={message} />
      </form>
    </section>
  );
}

function SessionsCard() {
  const api = useApi();
  const { login } = useSession();
  const { pending, message, submit } = useSubmit();
  const onClick = () =>
    submit(
      async () => {
        login(await signOutEverywhere(api));
        return 'Every other device is signed out.';
      },
      { failure: (error) => errorMessage(error, 'Could not sign out the other devices') },
    );
  return (
    <section className="card" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Devices</h2>
      <p>Lost a laptop or a phone? Sign out everywhere: only this browser stays signed in.</p>
      <button type="button" className="button" disabled={pending} onClick={() => void onClick()}>
        Sign out everywhere else
      </button>
      <StatusLine message={message} />
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
  const { pending, message, submit } = useSubmit();

  const run = (work: () => Promise<string | void>, failure: string) =>
    submit(work, {
      failure: async (error) => {
        if (!(error instanceof ApiError && error.status === 429)) return errorMessage(error, failure);
        // Too many wrong codes: the account says until when (the server's clock decides).
        const locked = await getAccount(api).catch(() => null);
        if (locked) onChange(locked);
        const until = locked?.codeLockedUntil;
        return until
          ? `${ErrorText.twoFactorLocked} Codes are accepted again at ${timeOfDay(until)}.`
          : errorMessage(error, failure);
      },
    });
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
      <Field id="two-factor-password" label="Your password">
        <input
          id="two-factor-password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Field>
      <Field id="two-factor-code" label={codeLabel}>
        <input
          id="two-factor-code"
          autoComplete="one-time-code"
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
      </Field>
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
              return 'Two-factor sign-in is off. Every other device is signed out.';
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
          <SubmitButton pending={pending} value="renew">
            Get new recovery codes
          </SubmitButton>
          <SubmitButton pending={pending} value="off">
            Turn off two-factor sign-in
          </SubmitButton>
        </div>
        <StatusLine message={message} />
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
        <StatusLine message={message} />
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
      <SubmitButton pending={pending}>Turn on</SubmitButton>
      <StatusLine message={message} />
    </form>
  );
}
