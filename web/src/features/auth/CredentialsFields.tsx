import { Field } from '../../components/ui';

interface CredentialsFieldsProps {
  /** Prefix of the field ids, e.g. "login" gives login-username and login-password. */
  idPrefix: string;
  username: string;
  password: string;
  onUsername(value: string): void;
  onPassword(value: string): void;
  /** current-password to sign in, new-password to register (lets password managers help). */
  passwordAutoComplete: 'current-password' | 'new-password';
  /** The id of the error line the fields point screen readers to, when there is an error. */
  errorId?: string;
}

/** The labelled username and password fields shared by sign-in and registration. */
export function CredentialsFields(props: CredentialsFieldsProps) {
  const { idPrefix, errorId } = props;
  return (
    <>
      <Field id={`${idPrefix}-username`} label="Username">
        <input
          id={`${idPrefix}-username`}
          name="username"
          type="text"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          required
          aria-describedby={errorId}
          value={props.username}
          onChange={(e) => props.onUsername(e.target.value)}
        />
      </Field>
      <Field id={`${idPrefix}-password`} label="Password">
        <input
          id={`${idPrefix}-password`}
          name="password"
          type="password"
          autoComplete={props.passwordAutoComplete}
          required
          aria-describedby={errorId}
          value={props.password}
          onChange={(e) => props.onPassword(e.target.value)}
        />
      </Field>
    </>
  );
}
