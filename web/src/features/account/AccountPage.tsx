import { AccountSettings } from './AccountSettings';

/** /account: any signed-in person's own account settings. */
export function AccountPage() {
  return (
    <div>
      <header className="page-header">
        <h1>Your account</h1>
      </header>
      <AccountSettings />
    </div>
  );
}
