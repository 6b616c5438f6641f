import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PostListQuery } from '@blog/contracts';
import type { DataSource, SelectQueryBuilder } from 'typeorm';
import type { Post } from '../posts/post.entity.js';
import { toPrefixTsquery, toTypoWords } from './search-query.js';

/** Relevance ranks at most this many of the newest matches, so a common word stays fast. */
const SEARCH_CANDIDATES = 1000;
/** Trigram similarity from which a known word counts as what a typo meant: "helmte" and "helmet" score 0.4. */
const TYPO_SIMILARITY = 0.4;

/** One page of matching post ids, best first, and how many matched. */
export interface SearchPage {
  ids: number[];
  total: number;
}

/** Search over the posts a filtered query allows: full text first, then the typo fallback. */
@Injectable()
export class SearchService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Full text (weighted, stemmed, accents ignored, last word as prefix), ranked by relevance
   * then recency; when that finds nothing, the typo fallback (typoCandidates). The cost is
   * bounded for common words: relevance ranks the newest SEARCH_CANDIDATES matches, and the
   * total counts at most that many (more matches than that report SEARCH_CANDIDATES).
   */
  async search(
    filtered: SelectQueryBuilder<Post>,
    text: string,
    query: PostListQuery,
  ): Promise<SearchPage> {
    const tsquery = toPrefixTsquery(text);
    if (tsquery) {
      const [sql, params] = filtered
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
    const words = toTypoWords(text);
    if (words.length === 0) return { ids: [], total: 0 };
    const [sql, params] = this.typoCandidates(filtered, words);
    return this.rankedPage(sql, params, 'c.score', {}, query);
  }

  /**
   * The typo fallback's candidates: the newest SEARCH_CANDIDATES posts whose title or tags
   * hold, for every typed word that resembles a known word, that word or one close to it
   * (trigram similarity at least TYPO_SIMILARITY, so "aquarim" finds "aquarium"). `score` adds
   * up how close each post's words are. Typed words like nothing on the blog are left out.
   * Known words come from search_words and their posts from post_words (see the
   * TypoSearchWords migration), so without filters the posts table is not read at all.
   */
  private typoCandidates(filtered: SelectQueryBuilder<Post>, words: string[]): [string, unknown[]] {
    const hasFilters = filtered.expressionMap.wheres.length > 0;
    const [filteredSql, params] = filtered.clone().select('p.id').getQueryAndParameters();
    params.push(words);
    const typed = `$${params.length}`;
    // One typed word: the newest candidates are among the newest of each of its fixes, read
    // from the end of the index. Several must all match, so older posts may count: no cut.
    const perWordLimit = words.length === 1 ? `LIMIT ${SEARCH_CANDIDATES}` : '';
    return [
      `WITH typed AS (
         SELECT n, posts.f_unaccent(word) AS word FROM unnest(${typed}::text[]) WITH ORDINALITY AS t (word, n)
       ), fixes AS (
         SELECT t.n, v.word, posts.similarity(t.word, v.word) AS similarity
         FROM typed t JOIN posts.search_words v ON t.word % v.word
         WHERE posts.similarity(t.word, v.word) >= ${TYPO_SIMILARITY}
       ), per_word AS (
         SELECT w.post_id, w.created_at, f.n, max(f.similarity) AS similarity
         FROM fixes f CROSS JOIN LATERAL (
           SELECT post_id, created_at FROM posts.post_words
           WHERE word = f.word ORDER BY created_at DESC ${perWordLimit}
         ) w
         GROUP BY w.post_id, w.created_at, f.n
       )
       SELECT post_id AS id, created_at, sum(similarity) AS score FROM per_word
       WHERE ${hasFilters ? `post_id IN (${filteredSql})` : 'true'}
       GROUP BY post_id, created_at
       HAVING count(*) = (SELECT count(DISTINCT n) FROM fixes)
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
