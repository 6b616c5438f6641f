import type { ImportFormat, ImportOptions, ImportReport } from '@blog/contracts';
import type { ImportRow, StoredReport } from '../../src/import/import-report.js';
import { ImportsRepository, type PostPlace } from '../../src/import/imports.repository.js';

/** The import jobs in memory, for fast tests of the runner's rules (the Postgres one runs in the HTTP tests). */
export class InMemoryImportsRepository extends ImportsRepository {
  readonly rows = new Map<string, ImportRow & { attempts: number }>();
  /** Originals the media items use. */
  readonly originals = new Set<string>();
  /** Old URL paths of visible posts, with where each post sits now. */
  readonly oldPaths = new Map<string, PostPlace>();

  async create(
    id: string,
    job: { format: ImportFormat; fileKey: string; options: ImportOptions; report: StoredReport },
  ): Promise<void> {
    const now = new Date();
    this.rows.set(id, {
      id,
      state: 'queued',
      format: job.format,
      file_key: job.fileKey,
      options: job.options,
      report: structuredClone(job.report),
      attempts: 0,
      created_at: now,
      updated_at: now,
    });
  }

  async find(id: string): Promise<ImportRow | null> {
    const row = this.rows.get(id);
    return row ? structuredClone(row) : null;
  }

  async openIds(): Promise<string[]> {
    return [...this.rows.values()]
      .filter((r) => r.state === 'queued' || r.state === 'running')
      .map((r) => r.id);
  }

  async claimAttempt(id: string): Promise<number | null> {
    const row = this.rows.get(id);
    if (!row || (row.state !== 'queued' && row.state !== 'running')) return null;
    row.attempts++;
    return row.attempts;
  }

  async save(id: string, state: ImportReport['state'], report: StoredReport): Promise<void> {
    Object.assign(this.rows.get(id)!, { state, report: structuredClone(report), updated_at: new Date() });
  }

  async usedOriginals(keys: string[]): Promise<Set<string>> {
    return new Set(keys.filter((key) => this.originals.has(key)));
  }

  async postOfOldPath(path: string): Promise<PostPlace | null> {
    return this.oldPaths.get(path) ?? null;
  }
}
