import busboy from 'busboy';
import { parse } from 'csv-parse/sync';
import {
  BLOCKLIST_CSV_HEADER,
  BLOCKLIST_MAX_BYTES,
  BLOCKLIST_MAX_ERRORS,
  BLOCKLIST_MAX_LINES,
  domainSchema,
  type BlockView,
} from '@blog/contracts';
import type { Request } from 'express';
import { ApiError } from '../common/api-error.js';

/** Mastodon's domain-block severities: suspend blocks; silence and noop have no match here. */
const SEVERITIES = new Set(['suspend', 'silence', 'noop']);
const KB = BLOCKLIST_MAX_BYTES / 1024;
/** A body that drips slower than this is cut: a stranger must not hold a connection open. */
const READ_TIMEOUT_MS = 10_000;

export interface ParsedBlocklist {
  /** Domains to block (severity suspend), each once, with the line it came from. */
  block: { line: number; domain: string }[];
  /** Rows taken but not blocked: silence or noop, or a domain named twice. */
  skipped: number;
  errors: { line: number; message: string }[];
}

/** Reads a stream into one buffer, refusing (413) past the cap and (408) a stall. */
function readCapped(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => fail(new ApiError(408, 'The upload took too long')), READ_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      stream.removeAllListeners('data');
      stream.resume();
      reject(error);
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BLOCKLIST_MAX_BYTES) return fail(new ApiError(413, `A blocklist may be at most ${KB} KB`));
      chunks.push(chunk);
    });
    stream.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    stream.on('error', (error: Error) => fail(error));
  });
}

/** The CSV of the upload: the body itself (text/csv), or the field `file` of a multipart form. */
export async function readBlocklistUpload(req: Request): Promise<Buffer> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) {
    if (!/^(text\/(csv|plain)|application\/(csv|octet-stream))\s*(;|$)/i.test(type))
      throw new ApiError(415, 'Send the CSV as text/csv, or as the field "file" of a multipart form');
    return readCapped(req);
  }
  return new Promise((resolve, reject) => {
    let found: Promise<Buffer> | null = null;
    let form: busboy.Busboy;
    try {
      form = busboy({ headers: req.headers, limits: { files: 1, fileSize: BLOCKLIST_MAX_BYTES + 1 } });
    } catch {
      return reject(new ApiError(400, 'The multipart form could not be read'));
    }
    form.on('file', (name, file) => {
      if (name !== 'file' || found) return void file.resume();
      found = readCapped(file);
      found.catch(() => undefined);
    });
    form.on('close', () => {
      if (!found) return reject(new ApiError(400, 'Send the CSV in the field "file"'));
      found.then(resolve, reject);
    });
    form.on('error', () => reject(new ApiError(400, 'The multipart form could not be read')));
    req.pipe(form);
  });
}

/**
 * Mastodon's domain-block CSV (`#domain,#severity,…`, or a headerless list of domains) read as
 * hostile input: text in UTF-8 only, at most BLOCKLIST_MAX_LINES lines, each domain checked as
 * a host name. A wrong line is reported with its number and the others are still taken.
 */
export function parseBlocklist(bytes: Buffer): ParsedBlocklist {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError(400, 'The file is not text in UTF-8: export the blocklist as CSV and try again');
  }
  if (text.includes('\u0000')) throw new ApiError(400, 'The file is not a CSV (it holds binary data)');
  let lines = 1;
  for (
    let at = text.indexOf('\n');
    at !== -1 && lines <= BLOCKLIST_MAX_LINES;
    at = text.indexOf('\n', at + 1)
  )
    if (at < text.length - 1) lines++;
  if (lines > BLOCKLIST_MAX_LINES)
    throw new ApiError(
      400,
      `A blocklist may have at most ${BLOCKLIST_MAX_LINES.toLocaleString('en-US')} lines: nothing was imported`,
    );
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new ApiError(400, `The file is not valid CSV${line ? ` at line ${line}` : ''}`);
  }
  if (records.length === 0) throw new ApiError(400, 'The file is empty');

  // With Mastodon's header, columns by name; without one, the domain first and the severity second.
  const first = records[0]!.record.map((cell) => cell.trim().replace(/^#/, '').toLowerCase());
  const headed = first.includes('domain');
  const domainAt = headed ? first.indexOf('domain') : 0;
  const severityAt = headed ? first.indexOf('severity') : 1;
  const result: ParsedBlocklist = { block: [], skipped: 0, errors: [] };
  const seen = new Set<string>();
  const error = (line: number, message: string) => {
    if (result.errors.length < BLOCKLIST_MAX_ERRORS) result.errors.push({ line, message });
  };
  for (const { record, info } of headed ? records.slice(1) : records) {
    const line = info.lines;
    const raw = (record[domainAt] ?? '').trim();
    const severity =
      severityAt >= 0 ? (record[severityAt] ?? '').trim().toLowerCase() || 'suspend' : 'suspend';
    if (!SEVERITIES.has(severity)) {
      error(line, 'severity must be suspend, silence or noop');
      continue;
    }
    const domain = domainSchema.safeParse(raw);
    if (!domain.success) {
      error(line, `"${raw.slice(0, 100)}" is not a domain such as mastodon.example`);
      continue;
    }
    if (severity !== 'suspend' || seen.has(domain.data)) {
      result.skipped++;
      continue;
    }
    seen.add(domain.data);
    result.block.push({ line, domain: domain.data });
  }
  return result;
}

/** The blog's server blocks in Mastodon's CSV (account blocks have no place in it). */
export function blocklistCsv(blocks: BlockView[]): string {
  const rows = blocks
    .filter((block) => block.domain !== null)
    .map((block) => `${block.domain},suspend,false,false,,false`);
  return [BLOCKLIST_CSV_HEADER, ...rows].join('\n') + '\n';
}
