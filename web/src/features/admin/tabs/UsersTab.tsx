import { ADMIN_ROLE, DEFAULT_ROLE, type PublicUser } from '@blog/contracts';
import { useState } from 'react';
import { deleteUser, listUsers, setUserRole } from '../../../api/auth';
import { errorMessage } from '../../../api/client';
import { useApi } from '../../../api/ApiContext';
import { ErrorLine } from '../../../components/ui';
import { useAsync } from '../../../hooks/useAsync';
import { formatShortDate } from '../../../lib/format';
import { useSession } from '../../../session/SessionContext';
import { Modal } from '../ui/Modal';

/**
 * Users tab: username, role, created date (docs/product.md#screens); the role can be changed and an
 * account deleted. The server refuses to remove or demote the last admin, and an admin's
 * own account; its message is shown.
 */
export function UsersTab() {
  const api = useApi();
  const { session } = useSession();
  const [version, setVersion] = useState(0);
  const state = useAsync((signal) => listUsers(api, signal), [api, version]);
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<PublicUser | null>(null);

  const act = async (id: string, work: () => Promise<unknown>, failure: string) => {
    setBusy(id);
    setProblem('');
    try {
      await work();
      setVersion((v) => v + 1);
    } catch (error) {
      setProblem(errorMessage(error, failure));
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="card" aria-labelledby="users-heading">
      <h2 id="users-heading">Users</h2>
      <ErrorLine error={problem} />
      {state.status === 'loading' && <p role="status">Loading users...</p>}
      {state.status === 'error' && <ErrorLine error={errorMessage(state.error, 'Failed to load users')} />}
      {state.status === 'ready' &&
        (state.data.length === 0 ? (
          <p className="empty">No users found.</p>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Username</th>
                  <th scope="col">Role</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {state.data.map((user) => (
                  <tr key={user.id}>
                    <td>{user.username}</td>
                    <td>
                      <select
                        aria-label={`Role of ${user.username}`}
                        value={user.role}
                        disabled={busy === user.id}
                        onChange={(event) => {
                          const role = event.target.value;
                          void act(
                            user.id,
                            () => setUserRole(api, user.id, role),
                            'Could not change the role',
                          );
                        }}
                      >
                        <option value={ADMIN_ROLE}>admin</option>
                        <option value={DEFAULT_ROLE}>user</option>
                      </select>
                    </td>
                    <td>{formatShortDate(user.created_at) || user.created_at}</td>
                    <td>
                      {user.username !== session?.username && (
                        <button
                          type="button"
                          className="button button-small button-danger"
                          disabled={busy === user.id}
                          onClick={() => setDeleting(user)}
                        >
                          Delete<span className="visually-hidden"> {user.username}</span>
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      {deleting && (
        <Modal title={`Delete ${deleting.username}?`} onClose={() => setDeleting(null)}>
          <p>The account is removed and signed out everywhere. This cannot be undone.</p>
          <div className="admin-actions">
            <button type="button" className="button button-secondary" onClick={() => setDeleting(null)}>
              Cancel
            </button>
            <button
              type="button"
              className="button button-danger"
              onClick={() => {
                const user = deleting;
                setDeleting(null);
                void act(user.id, () => deleteUser(api, user.id), 'Could not delete the user');
              }}
            >
              Delete
            </button>
          </div>
        </Modal>
      )}
    </section>
  );
}
