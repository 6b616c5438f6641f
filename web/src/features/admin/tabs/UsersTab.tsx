import { listUsers } from '../../../api/auth';
import { errorMessage } from '../../../api/client';
import { useApi } from '../../../api/ApiContext';
import { useAsync } from '../../../hooks/useAsync';
import { formatShortDate } from '../../../lib/format';

/** Users tab: username, role, created date (SPEC.md §2). */
export function UsersTab() {
  const api = useApi();
  const state = useAsync((signal) => listUsers(api, signal), [api]);
  return (
    <section className="card" aria-labelledby="users-heading">
      <h2 id="users-heading">Users</h2>
      {state.status === 'loading' && <p role="status">Loading users...</p>}
      {state.status === 'error' && (
        <p className="form-error" role="alert">
          {errorMessage(state.error, 'Failed to load users')}
        </p>
      )}
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
                </tr>
              </thead>
              <tbody>
                {state.data.map((user) => (
                  <tr key={user.id}>
                    <td>{user.username}</td>
                    <td>{user.role}</td>
                    <td>{formatShortDate(user.created_at) || user.created_at}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </section>
  );
}
