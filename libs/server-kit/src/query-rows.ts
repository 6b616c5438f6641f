/** What runs SQL: the DataSource or a transaction's EntityManager. */
interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * The rows a statement returns. TypeORM answers UPDATE and DELETE with [rows, affected count]
 * and everything else with the rows; this reads both the same way.
 */
export async function queryRows<T>(db: Queryable, sql: string, parameters: unknown[] = []): Promise<T[]> {
  const result = await db.query(sql, parameters);
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as T[];
  }
  return result as T[];
}
