import busboy from 'busboy';
import { parse, type CsvError } from 'csv-parse';
import {
  Patterns,
  SUBSCRIBER_EMAIL_COLUMNS,
  SUBSCRIBER_IMPORT_BATCH,
  SUBSCRIBER_IMPORT_LINE_MAX,
  SUBSCRIBER_IMPORT_MAX_BYTES,
  SUBSCRIBER_IMPORT_MAX_LINES,
  subscriberImportOptionsSchema,
  type SubscriberImportOptions,
  type SubscriberImportReport,
} from '@blog/contracts';
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ApiError } from '../common/api-error.js';
import type { ServiceClients } from '../rpc/service-clients.js';

/** A batch of rows may take the mail service a while (500 inserts and the report in one transaction). */
const ROWS_TIMEOUT_MS = 60_000;
const KB = SUBSCRIBER_IMPORT_LINE_MAX / 1024;
const MB = SUBSCRIBER_IMPORT_MAX_BYTES / (1024 * 1024);

/** The upload itself failed (not the CSV in it). */
class UploadError extends Error {}

const normalise = (name: string) => name.replace(/\s+/g, '').toLowerCase();

/** The text of a CSV reader's error, for the report (the lines before it are kept). */
function csvErrorText(error: CsvError | Error): string {
  const { code, lines } = error as CsvError & { lines?: number };
  const kept = 'the lines before it were imported';
  if (code === 'CSV_MAX_RECORD_SIZE')
    return `Line ${lines} is longer than ${KB} KB: the import stopped there (${kept})`;
  if (code === 'CSV_QUOTE_NOT_CLOSED')
    return `A quoted value is never closed (from line ${lines}): the import stopped there (${kept})`;
  return `The file is not valid CSV at line ${lines ?? '?'}: ${error.message} (${kept})`;
}

/** The column holding the address: its header named as Ghost, Substack, Mailchimp or Buttondown name it. */
function emailColumn(header: string[]): number | string {
  const text = header.join(',');
  if (text.includes('\u0000') || text.startsWith('\uFFFD'))
    return 'The file looks like UTF-16: save it as CSV in UTF-8 and import it again';
  const names: readonly string[] = SUBSCRIBER_EMAIL_COLUMNS;
  const index = header.findIndex((name) => names.includes(normalise(name)));
  return index >= 0
    ? index
    : 'No address column: the first line must name it (email, or Email Address as Mailchimp writes it)';
}

/**
 * Reads the CSV as it arrives (never whole in memory) and sends its addresses to the mail
 * service in batches; the backpressure of each batch's answer slows the upload down. The
 * first line names the columns; a BOM is dropped; a line over the limit, a quote never
 * closed, too many lines or a file too large end the import with the reason, the lines
 * before it kept. Answers the final report.
 */
async function importStream(
  file: Readable,
  options: SubscriberImportOptions,
  services: ServiceClients,
  id: string | undefined,
  truncated: () => boolean,
): Promise<SubscriberImportReport> {
  const started = await services.call('mail', Patterns.mail.subscriberImportStart, {
    ...(id ? { id } : {}),
    consented: options.consented,
    frequency: options.frequency,
  });
  const csv = parse({
    bom: true,
    max_record_size: SUBSCRIBER_IMPORT_LINE_MAX,
    relax_column_count: true,
    skip_empty_lines: true,
    info: true,
  });
  // Records are taken as each chunk is parsed (a parse error must not drop the records read
  // before it), and the next chunk is read only once they are handled: backpressure.
  const records: { record: string[]; info: { lines: number } }[] = [];
  csv.on('data', (record: { record: string[]; info: { lines: number } }) => records.push(record));
  csv.on('error', () => undefined); // read from csv.errored
  let column: number | undefined;
  let lines = 0;
  let batch: { line: number; email: string }[] = [];
  let error: string | undefined;
  const flush = async () => {
    if (!batch.length) return;
    const rows = batch;
    batch = [];
    await services.call(
      'mail',
      Patterns.mail.subscriberImportRows,
      { id: started.id, rows },
      ROWS_TIMEOUT_MS,
    );
  };
  /** Handles the records parsed so far; false once the import must stop. */
  const take = async (): Promise<boolean> => {
    for (const { record, info } of records.splice(0)) {
      if (column === undefined) {
        const found = emailColumn(record);
        if (typeof found === 'string') {
          error = found;
          return false;
        }
        column = found;
        continue;
      }
      if (++lines > SUBSCRIBER_IMPORT_MAX_LINES) {
        lines--;
        error = `A file may have at most ${SUBSCRIBER_IMPORT_MAX_LINES.toLocaleString('en-US')} lines: the import stopped at line ${info.lines} (the lines before it were imported)`;
        return false;
      }
      // Longer than any address: refused by the mail service all the same, without the bulk.
      batch.push({ line: info.lines, email: (record[column] ?? '').slice(0, 1000) });
      if (batch.length >= SUBSCRIBER_IMPORT_BATCH) await flush();
    }
    return true;
  };
  const parseFailure = () => (csv.errored ? csvErrorText(csv.errored) : undefined);
  try {
    let going = true;
    for await (const chunk of file.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      csv.write(chunk);
      going = await take();
      error ??= parseFailure();
      if (!going || error) break;
    }
    if (going && !error) {
      csv.end();
      await finished(csv).catch(() => undefined);
      await take();
      error ??= parseFailure();
    }
    if (!error && column === undefined) error = 'The file is empty: the first line must name the columns';
  } catch (failure) {
    if (failure instanceof ApiError) throw failure;
    error =
      failure instanceof UploadError ? failure.message : `The upload failed: ${(failure as Error).message}`;
  } finally {
    // What is left of the upload is read and dropped, so the answer reaches the client.
    file.resume();
  }
  await flush();
  if (!error && truncated())
    error = `The file is larger than ${MB} MB: the import stopped there (the lines before it were imported)`;
  return services.call('mail', Patterns.mail.subscriberImportFinish, {
    id: started.id,
    ...(error ? { error } : {}),
  });
}

/**
 * POST /api/admin/subscribers/import: multipart with the fields `consented` and `frequency`
 * first, then `file`. Answers the import's report once the upload is read to its end.
 */
export function importSubscribers(
  req: Request,
  services: ServiceClients,
  id: string | undefined,
): Promise<SubscriberImportReport> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { files: 1, fields: 10, fieldSize: 1024, fileSize: SUBSCRIBER_IMPORT_MAX_BYTES },
      });
    } catch {
      reject(new ApiError(400, 'Expected a multipart/form-data body'));
      return;
    }
    const fields: Record<string, string> = {};
    let work: Promise<SubscriberImportReport> | null = null;
    let refused: ApiError | null = null;
    let file: Readable | null = null;
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('file', (name, stream) => {
      if (work || refused) return stream.resume();
      if (name !== 'file') refused = new ApiError(400, 'Send the CSV in the field "file"');
      else if (fields.consented === undefined)
        refused = new ApiError(400, 'Send the fields consented and frequency before the file');
      if (refused) return stream.resume();
      const options = subscriberImportOptionsSchema.safeParse(fields);
      if (!options.success) {
        refused = new ApiError(400, options.error.issues[0]!.message);
        return stream.resume();
      }
      let truncated = false;
      stream.on('limit', () => (truncated = true));
      file = stream;
      work = importStream(stream, options.data, services, id, () => truncated).catch((error: unknown) => {
        // Refused before reading (an import id taken, the mail service down): the rest is dropped.
        stream.resume();
        throw error;
      });
      // Settled here too, so a failure before the body ends is never unhandled.
      work.catch(() => undefined);
    });
    parser.on('error', () => {
      if (!work) refused ??= new ApiError(400, 'Malformed multipart body');
      else file?.destroy(new UploadError('Malformed multipart body: the import stopped there'));
    });
    parser.on('close', () => {
      if (work) work.then(resolve, reject);
      else reject(refused ?? new ApiError(400, 'Send the CSV in the field "file"'));
    });
    req.on('close', () => {
      if (req.complete) return;
      if (!file || !work) return reject(new ApiError(400, 'Upload interrupted'));
      file.destroy(new UploadError('Upload interrupted: the import stopped there'));
      work.then(resolve, reject);
    });
    req.pipe(parser);
  });
}
