import { useEffect, useState } from 'react';
import { useApi } from '../../../api/ApiContext';
import { Link } from '../../../components/Link';
import { placeHref } from '../nav/placeRules';
import { listBackups } from './backupsApi';
import './backups.css';

/**
 * The dashboard front page's warning when the backups need a look: the last one failed, the
 * last good one is more than 2 days old, or none exists while a schedule is set (the server's
 * rule, `warning` in GET /api/admin/backups). Silent when the list cannot be read: the Backup
 * tab says why.
 */
export function BackupWarning() {
  const api = useApi();
  const [warning, setWarning] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    listBackups(api, controller.signal).then(
      (list) => setWarning(list.warning),
      () => undefined,
    );
    return () => controller.abort();
  }, [api]);
  if (!warning) return null;
  return (
    <p className="backups-notice" role="status">
      {warning.replace(/\.$/, '')}. <Link to={placeHref('backup')}>Open the Backup tab</Link>
    </p>
  );
}
