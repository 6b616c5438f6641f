import type { ContactMessageView } from '@blog/contracts/mail';
import type { ReactNode } from 'react';
import { useApi } from '../../../api/ApiContext';
import { errorMessage, type Page } from '../../../api/client';
import { Pagination } from '../../../components/Pagination';
import { useAsync } from '../../../hooks/useAsync';
import { usePageParam } from '../../../hooks/usePageParam';
import { formatDateTime } from '../../../lib/format';
import { listMessages, MAIL_PAGE_SIZE } from '../lib/adminApi';
import { ErrorLine } from '../../../components/ui';

interface ListTabProps<T> {
  id: string;
  title: string;
  empty: string;
  load(page: number, signal: AbortSignal): Promise<Page<T>>;
  head: ReactNode;
  row(item: T): ReactNode;
}

/** One of the owner's mail lists (docs/product.md#mail): newest first, paged in the API. */
function ListTab<T>({ id, title, empty, load, head, row }: ListTabProps<T>) {
  const [page, setPage] = usePageParam();
  const state = useAsync((signal) => load(page, signal), [page]);
  return (
    <section className="card" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{title}</h2>
      {state.status === 'loading' && <p role="status">Loading...</p>}
      {state.status === 'error' && (
        <ErrorLine error={errorMessage(state.error, `Failed to load ${title.toLowerCase()}`)} />
      )}
      {state.status === 'ready' &&
        (state.data.items.length === 0 ? (
          <p className="empty">{empty}</p>
        ) : (
          <>
            <div className="table-wrap">
              <table className="table">
                <thead>{head}</thead>
                <tbody>{state.data.items.map(row)}</tbody>
              </table>
            </div>
            <Pagination
              page={page}
              pageSize={MAIL_PAGE_SIZE}
              total={state.data.total}
              onPageChange={setPage}
              label={`${title} pages`}
            />
          </>
        ))}
    </section>
  );
}

export function MessagesTab() {
  const api = useApi();
  return (
    <ListTab<ContactMessageView>
      id="messages"
      title="Messages"
      empty="No messages yet."
      load={(page, signal) => listMessages(api, page, signal)}
      head={
        <tr>
          <th scope="col">Received</th>
          <th scope="col">From</th>
          <th scope="col">Subject</th>
          <th scope="col">Message</th>
          <th scope="col">Status</th>
        </tr>
      }
      row={(m) => (
        <tr key={m.id}>
          <td>{formatDateTime(m.created_at)}</td>
          <td>
            {m.name}
            <br />
            <a href={`mailto:${m.email}`}>{m.email}</a>
          </td>
          <td>{m.subject}</td>
          <td className="admin-message-text">{m.message}</td>
          <td>{m.status}</td>
        </tr>
      )}
    />
  );
}
