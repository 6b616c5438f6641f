import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PostListQuery } from '@blog/contracts';
import type { DataSource, SelectQueryBuilder } from 'typeorm';
import type { Post } from '../posts/post.entity.js';
import { VISIBILITY_SQL, type PostVisibilityFilter } from '../posts/visibility.js';
import { toPrefixTsquery, toTypoWords, typoAllowance, typoDistance } from './search-query.js';

/** Relevance ranks at most this many of the newest matches, so a common word stays fast. */
const SEARCH_CANDIDATES = 1000;
/**
 * Trigram similarity from which a known word is worth checking for typos. Low, because one
 * swapped pair in a five-letter word ("acble", "cable") leaves only 0.2; the edit distance
 * then decides.
 */
const TYPO_PREFILTER = 0.2;

/** A known word a typed one may have meant, and how close it is (1 when exact). */
interface TypoFix {
  n: number;
  word: string;
  score: number;
}

/** One page of matching post ids, best first, and how many matched. */
export interface SearchPage {
  ids: number[];
  total: number;
}

/**
 * The posts' search SQL, over the posts a filtered query allows: full text first, then the typo
 * fallback. Part of PostgresPostsRepository (which builds the filtered query).
 */
@Injectable()
export class PostSearchRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Full text (weighted, stemmed, accents ignored, last word as prefix), ranked by relevance
   * then recency; when that finds nothing, the typo fallback (typoCandidates). The cost is
   * bounded for common words: relevance ranks the newest SEARCH_CANDIDATES matches, and the
   * total counts at most that many (more matches than that report SEARCH_CANDIDATES).
   */
  async search(
    filtered: SelectQueryBuilder<Post>,
    visibility: PostVisibilityFilter,
    text: string,
    query: PostListQuery,
  ): Promise<SearchPage> {
    const visible = filtered.clone();
    if (VISIBILITY_SQL[visibility]) visible.andWhere(VISIBILITY_SQL[visibility]!);
    const tsquery = toPrefixTsquery(text);
    if (tsquery) {
      const [sql, params] = visible
        .clone()
        .andWhere(`p.search @@ to_tsquery('english', posts.f_unaccent(:tsquery))`, { tsquery })
        .select(['p.id AS id', 'p.created_at AS created_at', 'p.search AS search'])
        .orderBy('p.created_at', 'DESC')
        .limit(SEARCH_CANDIDATES)
        .getQueryAndParameters();
      const page = await this.rankedPage(
        sql,
        params,
        `ts_rank_cd(c.search, to_tsquery('english', posts.f_unaccent($tsquery)))`,
        { tsquery },
        query,
      );
      if (page.total > 0) return page;
    }
    const fixes = await this.typoFixes(toTypoWords(text));
    if (fixes.length === 0) return { ids: [], total: 0 };
    const [sql, params] = this.typoCandidates(filtered, visible, visibility, fixes);
    return this.rankedPage(sql, params, 'c.score', {}, query);
  }

  /**
   * For each typed word, the known words (titles' and tags' words, accents removed) it may
   * have meant: itself, or one within its typo allowance (typoAllowance). The trigram index
   * finds the candidates; the edit distance decides. A typed word like nothing on the blog
   * has no fix and is left out of the search.
   */
  private async typoFixes(words: string[]): Promise<TypoFix[]> {
    if (words.length === 0) return [];
    const rows: { n: number; typed: string; word: string }[] = await this.db.transaction(async (manager) => {
      await manager.query(`SET LOCAL pg_trgm.similarity_threshold = ${TYPO_PREFILTER}`);
      return manager.query(
        `WITH typed AS (
           SELECT n::int, posts.f_unaccent(word) AS word
           FROM unnest($1::text[]) WITH ORDINALITY AS t (word, n)
         )
         SELECT t.n, t.word AS typed, v.word FROM typed t JOIN posts.search_words v
           ON v.word = t.word OR (length(t.word) >= 5 AND v.word OPERATOR(posts.%) t.word
              AND abs(length(v.word) - length(t.word)) <= 2)`,
        [words],
      );
    });
    const fixes: TypoFix[] = [];
    for (const row of rows) {
      const allowed = typoAllowance(row.typed);
      const distance = typoDistance(row.typed, row.word, allowed);
      if (distance <= allowed) fixes.push({ n: row.n, word: row.word, score: 1 / (1 + distance) });
    }
    return fixes;
  }

  /**
   * The typo fallback's candidates: the newest SEARCH_CANDIDATES posts the reader may see that
   * hold, for every typed word with fixes, one of them in their title or tags; `score` adds up
   * how close each post's words are. Known words' posts come from post_words (see the
   * TypoSearchWords migration), so without filters the posts table is not read: a visitor's
   * visibility is checked on post_words' dates and against the few drafts.
   */
  private typoCandidates(
    filtered: SelectQueryBuilder<Post>,
    visible: SelectQueryBuilder<Post>,
    visibility: PostVisibilityFilter,
    fixes: TypoFix[],
  ): [string, unknown[]] {
    const hasFilters = filtered.expressionMap.wheres.length > 0;
    const cheap =
      !hasFilters && (visibility === 'visible' || visibility === 'published' || visibility === 'all');
    const [visibleSql, params] = visible.clone().select('p.id').getQueryAndParameters();
    params.push(
      fixes.map((f) => f.n),
      fixes.map((f) => f.word),
      fixes.map((f) => f.score),
    );
    const [n, word, score] = [params.length - 2, params.length - 1, params.length].map((i) => `$${i}`);
    const datedByNow = cheap && visibility !== 'all' ? 'AND created_at <= now()' : '';
    const where = !cheap
      ? `post_id IN (${visibleSql})`
      : visibility === 'all'
        ? 'true'
        : `post_id NOT IN (SELECT id FROM posts.posts WHERE status = 'draft')`;
    // One typed word: the newest candidates are among the newest of each of its fixes, read
    // from the end of the index. Several must all match, so older posts may count: no cut.
    const typedWords = new Set(fixes.map((f) => f.n)).size;
    const perWordLimit = typedWords === 1 ? `LIMIT ${SEARCH_CANDIDATES}` : '';
    return [
      `WITH fixes AS (
         SELECT * FROM unnest(${n}::int[], ${word}::text[], ${score}::float8[]) AS f (n, word, score)
       ), per_word AS (
         SELECT w.post_id, w.created_at, f.n, max(f.score) AS score
         FROM fixes f CROSS JOIN LATERAL (
           SELECT post_id, created_at FROM posts.post_words
           WHERE word = f.word ${datedByNow} ORDER BY created_at DESC ${perWordLimit}
         ) w
         GROUP BY w.post_id, w.created_at, f.n
       )
       SELECT post_id AS id, created_at, sum(score) AS score FROM per_word
       WHERE ${where}
       GROUP BY post_id, created_at
       HAVING count(*) = ${typedWords}
       ORDER BY created_at DESC
       LIMIT ${SEARCH_CANDIDATES}`,
      params,
    ];
  }

  /**
   * Orders the candidates (`sql`: rows of id and created_at, the newest SEARCH_CANDIDATES
   * matches) by `rank` (highest first, then newest) and returns one page of ids with the number
   * of candidates as the total, in one query.
   */
  private async rankedPage(
    sql: string,
    candidateParams: unknown[],
    rank: string,
    rankParams: Record<string, string>,
    query: PostListQuery,
  ): Promise<SearchPage> {
    const params = [...candidateParams];
    let rankSql = rank;
    for (const [name, value] of Object.entries(rankParams)) {
      params.push(value);
      rankSql = rankSql.replace(`$${name}`, `$${params.length}`);
    }
    params.push(query.limit, (query.page - 1) * query.limit);
    const rows: { id: number; total: string }[] = await this.db.query(
      `SELECT c.id, count(*) OVER () AS total FROM (${sql}) c
       ORDER BY ${rankSql} DESC, c.created_at DESC, c.id DESC
       LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    if (rows.length > 0) return { ids: rows.map((r) => r.id), total: Number(rows[0]!.total) };
    if (query.page === 1) return { ids: [], total: 0 };
    // A page past the end: count the candidates on their own.
    const counted: { total: string }[] = await this.db.query(
      `SELECT count(*) AS total FROM (${sql}) c`,
      candidateParams,
    );
    return { ids: [], total: Number(counted[0]?.total ?? 0) };
  }
}
