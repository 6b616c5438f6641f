import type { PublicUser } from '@blog/contracts';
import { useEffect, useState } from 'react';
import { useApi } from '../../api/ApiContext';
import { listUsers } from '../../api/auth';
import { errorMessage } from '../../api/client';
import { useSession } from '../../session/SessionContext';

/** Admin dashboard; the Posts and Settings tabs are added by later issues. */
export function AdminPage() {
  const { session } = useSession();
  return (
    <div className="admin">
      <header className="page-header">
        <h1>Admin Dashboard</h1>
        <p>Welcome, {session?.username}</p>
      </header>
      <UsersPanel />
    </div>
  );
}

type UsersState =
  { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; users: PublicUser[] };

function UsersPanel() {
  const api = useApi();
  const [state, setState] = useState<UsersState>({ status: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    listUsers(api, controller.signal).then(
      (users) => setState({ status: 'ready', users: Array.isArray(users) ? users : [] }),
      (error: unknown) => {
        if (!controller.signal.aborted) {
          setState({ status: 'error', message: errorMessage(error, 'Failed to load users') });
        }
      },
    );
    return () => controller.abort();
  }, [api]);

  return (
    <section className="card" aria-labelledby="users-heading">
      <h2 id="users-heading">Users</h2>
      {state.status === 'loading' && <p role="status">Loading users...</p>}
      {state.status === 'error' && (
        <p className="form-error" role="alert">
          {state.message}
        </p>
      )}
      {state.status === 'ready' &&
        (state.users.length === 0 ? (
          <p>No users found.</p>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Username</th>
                  <th scope="col">Role</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {state.users.map((user) => (
                  <tr key={user.id}>
                    <td>{user.username}</td>
                    <td>{user.role}</td>
                    <td>{formatDate(user.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </section>
  );
}

function formatDate(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleDateString();
}
