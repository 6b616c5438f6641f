import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import {
  importedEmailSchema,
  type SubscriberFrequency,
  type SubscriberImportReport,
  type SubscriberImportState,
} from '@blog/contracts';
import { DataSource } from 'typeorm';
import { queryRows, RpcError } from '@blog/server-kit';
import { SubscriberListRepository } from './subscriber-list.repository.js';
import { SubscriptionsService } from './subscriptions.service.js';

/** The report keeps at most this many refused lines. */
export const IMPORT_ERRORS_KEPT = 100;

interface ImportRow {
  id: string;
  state: SubscriberImportState;
  consented: boolean;
  frequency: SubscriberFrequency;
  lines: number;
  added: number;
  confirmed: number;
  pending: number;
  duplicates: number;
  invalid: number;
  errors: { line: number; reason: string }[];
  error: string | null;
  started_at: Date;
  finished_at: Date | null;
}

const toReport = (row: ImportRow): SubscriberImportReport => ({
  id: row.id,
  state: row.state,
  lines: row.lines,
  added: row.added,
  confirmed: row.confirmed,
  pending: row.pending,
  duplicates: row.duplicates,
  invalid: row.invalid,
  errors: row.errors,
  ...(row.error ? { error: row.error } : {}),
  startedAt: row.started_at.toISOString(),
  finishedAt: row.finished_at?.toISOString() ?? null,
});

/**
 * A CSV import of subscribers, fed by the gateway in batches as it reads the upload. Each
 * batch is checked (the subscribe form's address rule; repeats in the file and addresses
 * already here are duplicates; neither is fatal), inserted in one statement and counted in the
 * import's row, in one transaction, so the report always matches what was added and a file cut
 * short keeps the rows before the cut.
 */
@Injectable()
export class SubscriberImportService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly list: SubscriberListRepository,
    private readonly subscriptions: SubscriptionsService,
  ) {}

  async start(
    consented: boolean,
    frequency: SubscriberFrequency,
    id: string = randomUUID(),
  ): Promise<SubscriberImportReport> {
    const rows = await queryRows<ImportRow>(
      this.db,
      `INSERT INTO subscriber_imports (id, consented, frequency) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO NOTHING RETURNING *`,
      [id, consented, frequency],
    );
    if (!rows[0]) throw RpcError.conflict('This import id is taken');
    return toReport(rows[0]);
  }

  async rows(id: string, rows: { line: number; email: string }[]): Promise<SubscriberImportReport> {
    const report = await this.db.transaction(async (manager) => {
      const [current] = await queryRows<ImportRow>(
        manager,
        `SELECT * FROM subscriber_imports WHERE id = $1 FOR UPDATE`,
        [id],
      );
      if (!current) throw RpcError.notFound('Import not found');
      if (current.state !== 'running') throw RpcError.conflict('This import has ended');
      const errors: { line: number; reason: string }[] = [];
      const refuse = (line: number, reason: string) => {
        if (current.errors.length + errors.length < IMPORT_ERRORS_KEPT) errors.push({ line, reason });
      };
      const seen = new Set<string>();
      const emails: string[] = [];
      let invalid = 0;
      let repeated = 0;
      for (const row of rows) {
        const parsed = importedEmailSchema.safeParse(row.email);
        // An address is one line of printable text: a line break or control character never
        // reaches a mail header.
        if (!parsed.success || /[\p{Cc}\s]/u.test(parsed.data)) {
          invalid++;
          refuse(
            row.line,
            parsed.success ? 'email must be a valid e-mail address' : parsed.error.issues[0]!.message,
          );
          continue;
        }
        const key = parsed.data.toLowerCase();
        if (seen.has(key)) {
          repeated++;
          continue;
        }
        seen.add(key);
        emails.push(parsed.data);
      }
      const added = await this.list.insertImported(manager, {
        emails,
        consented: current.consented,
        frequency: current.frequency,
      });
      const updated = await queryRows<ImportRow>(
        manager,
        `UPDATE subscriber_imports SET lines = lines + $2, added = added + $3,
           confirmed = confirmed + $4, pending = pending + $5, duplicates = duplicates + $6,
           invalid = invalid + $7, errors = errors || $8::jsonb
         WHERE id = $1 RETURNING *`,
        [
          id,
          rows.length,
          added,
          current.consented ? added : 0,
          current.consented ? 0 : added,
          repeated + (emails.length - added),
          invalid,
          JSON.stringify(errors),
        ],
      );
      return toReport(updated[0]!);
    });
    if (report.pending > 0) this.subscriptions.sendDueConfirmations();
    return report;
  }

  async finish(id: string, error?: string): Promise<SubscriberImportReport> {
    const rows = await queryRows<ImportRow>(
      this.db,
      `UPDATE subscriber_imports SET state = $2, error = $3, finished_at = now()
       WHERE id = $1 AND state = 'running' RETURNING *`,
      [id, error ? 'failed' : 'done', error ?? null],
    );
    return rows[0] ? toReport(rows[0]) : this.status(id);
  }

  async status(id: string): Promise<SubscriberImportReport> {
    const rows = await queryRows<ImportRow>(this.db, `SELECT * FROM subscriber_imports WHERE id = $1`, [id]);
    if (!rows[0]) throw RpcError.notFound('Import not found');
    return toReport(rows[0]);
  }
}
