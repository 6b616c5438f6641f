import { IMPORT_MAX_ERRORS, type ImportFormat, type ImportOptions, type ImportReport } from '@blog/contracts';

/** The report as stored: the public one plus where the work stands (for a resumed run). */
export interface StoredReport extends Omit<
  ImportReport,
  'id' | 'state' | 'format' | 'createdAt' | 'updatedAt'
> {
  /** Items of the file already handled, in file order. */
  processed: number;
  postsDone: number;
  /** Comments brought with the posts (added, not counting those an earlier run brought). */
  comments?: number;
}

/** An import's row in posts.imports. */
export interface ImportRow {
  id: string;
  state: ImportReport['state'];
  format: ImportFormat | null;
  file_key: string;
  options: ImportOptions;
  report: StoredReport;
  created_at: Date;
  updated_at: Date;
}

export const emptyReport = (): StoredReport => ({
  percent: 0,
  total: 0,
  imported: 0,
  updated: 0,
  skipped: 0,
  failed: 0,
  media: { downloaded: 0, failed: 0 },
  errors: [],
  skippedBy: {},
  redirects: 0,
  restricted: [],
  processed: 0,
  postsDone: 0,
});

/** One line of the report's errors: the first IMPORT_MAX_ERRORS are kept, the counts say the rest. */
export function reportError(report: StoredReport, item: string, message: string): void {
  if (report.errors.length < IMPORT_MAX_ERRORS) report.errors.push({ item, message });
}
