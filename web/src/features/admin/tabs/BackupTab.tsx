import { ExportPanel } from './ExportPanel';
import { ImportPanel } from './ImportPanel';

/** Bringing a blog in (WordPress, Ghost, this blog's own export) and taking everything out. */
export function BackupTab() {
  return (
    <div className="admin-backup">
      <ImportPanel />
      <ExportPanel />
    </div>
  );
}
