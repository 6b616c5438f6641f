import type { ExportState } from '@blog/contracts';
import {
  ExportsRepository,
  type ExportRecord,
  type StoredExportReport,
} from '../../src/archive/exports.repository.js';

/** The export jobs in memory, for fast tests of their rules (the Postgres one runs in the HTTP tests). */
export class InMemoryExportsRepository extends ExportsRepository {
  readonly rows = new Map<string, ExportRecord & { attempts: number }>();
  readonly usedLinks = new Map<string, Date>();
  posts = 0;

  async create(id: string, report: StoredExportReport): Promise<void> {
    const now = new Date();
    this.rows.set(id, { id, state: 'queued', report, attempts: 0, createdAt: now, updatedAt: now });
  }

  async find(id: string): Promise<ExportRecord | null> {
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
    Object.assign(row, { attempts: row.attempts + 1, state: 'running', updatedAt: new Date() });
    return row.attempts;
  }

  async save(id: string, state: ExportState, report: StoredExportReport): Promise<void> {
    const row = this.rows.get(id);
    if (!row || row.state === 'done' || row.state === 'failed') return;
    Object.assign(row, { state, report: structuredClone(report), updatedAt: new Date() });
  }

  async deleteFinishedBefore(hours: number): Promise<string[]> {
    const before = Date.now() - hours * 3_600_000;
    const old = [...this.rows.values()].filter(
      (r) => (r.state === 'done' || r.state === 'failed') && r.updatedAt.getTime() < before,
    );
    for (const row of old) this.rows.delete(row.id);
    return old.map((row) => row.id);
  }

  async countPosts(): Promise<number> {
    return this.posts;
  }

  async claimLink(id: string, expiresAt: Date): Promise<boolean> {
    for (const [used, expires] of this.usedLinks)
      if (expires.getTime() < Date.now()) this.usedLinks.delete(used);
    if (this.usedLinks.has(id)) return false;
    this.usedLinks.set(id, expiresAt);
    return true;
  }
}
