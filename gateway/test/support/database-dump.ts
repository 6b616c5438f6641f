import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/**
 * The whole database as a backup holds it: `pg_dump` when one as new as the server is here
 * (PG_DUMP, or Debian's /usr/lib/postgresql/<major>/bin). pg_dump refuses a newer server, and
 * the embedded PostgreSQL 18 of the tests ships none, so otherwise every table's rows as
 * pg_dump writes them (COPY ... TO STDOUT, text format), schema by schema.
 */
export async function dumpDatabase(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const major = Number((await client.query(`SHOW server_version_num`)).rows[0].server_version_num) / 10000;
    const candidates = [process.env.PG_DUMP, `/usr/lib/postgresql/${Math.floor(major)}/bin/pg_dump`];
    const pgDump = candidates.find((file) => file && existsSync(file));
    if (pgDump) return (await run(pgDump, ['-d', url], { maxBuffer: 512 * 1024 * 1024 })).stdout;
    const tables = (
      await client.query(
        `SELECT table_schema, table_name FROM information_schema.tables
         WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'
         ORDER BY 1, 2`,
      )
    ).rows as { table_schema: string; table_name: string }[];
    let dump = '';
    for (const { table_schema, table_name } of tables) {
      dump += `COPY "${table_schema}"."${table_name}" FROM stdin;\n`;
      // COPY's text format, row by row: tab-separated columns, \N for null.
      const { rows } = await client.query({
        text: `SELECT * FROM "${table_schema}"."${table_name}"`,
        rowMode: 'array',
      });
      for (const row of rows as unknown[][])
        dump += `${row.map((v) => (v === null ? '\\N' : v instanceof Date ? v.toISOString() : Buffer.isBuffer(v) ? `\\\\x${v.toString('hex')}` : typeof v === 'object' ? JSON.stringify(v) : String(v))).join('\t')}\n`;
      dump += '\\.\n\n';
    }
    return dump;
  } finally {
    await client.end();
  }
}
