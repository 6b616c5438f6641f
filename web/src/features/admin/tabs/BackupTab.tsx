import { BackupsPanel } from './BackupsPanel';
import { ExportPanel } from './ExportPanel';
import { ImportPanel } from './ImportPanel';

/**
 * The blog's own backups (scheduled, or now), bringing a blog in (WordPress, Ghost, this blog's
 * own export) and taking everything out.
 */
export function BackupTab() {
  return (
    <div className="admin-backup">
      <BackupsPanel />
      <ImportPanel />
      <ExportPanel />
    </div>
  );
}
