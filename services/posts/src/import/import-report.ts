import { IMPORT_MAX_ERRORS, type ImportFormat, type ImportOptions, type ImportReport } from '@blog/contracts';

/** The report as stored: the public one plus where the work stands (for a resumed run). */
export interface StoredReport extends Omit<
  ImportReport,
  'id' | 'state' | 'format' | 'createdAt' | 'updatedAt'
> {
  /** Items of the file already handled, in file order. */
  processed: number;
  postsDone: number;
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

/** A zip's local file header: this blog's own export. */
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** Reads the file's first bytes: a WordPress export (XML with the WXR namespace), a Ghost export (JSON) or this blog's own (zip). */
export function detectFormat(head: Buffer): ImportFormat | null {
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (text.startsWith('<') && /wordpress\.org\/export\//.test(text)) return 'wxr';
  if (text.startsWith('{')) return 'ghost';
  if (head.subarray(0, 4).equals(ZIP_MAGIC)) return 'blog';
  return null;
}
