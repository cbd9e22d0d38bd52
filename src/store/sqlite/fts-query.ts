import { formatKeywordQuery, quoteWords, type KeywordQuery, type TextConstraints } from "../../core/keyword-query.js";

/**
 * Neutral keyword queries as FTS5 MATCH expressions. FTS5 reads Chunkpad's search syntax as it
 * is (every word a quoted string literal, `*` a prefix, AND / OR / NOT), so the expression is the
 * query's display form; another backend compiles the same KeywordQuery to its own syntax.
 */
export function toMatchExpression(query: KeywordQuery): string | null {
  return formatKeywordQuery(query);
}

/** FTS5 expressions for a vector hit's constraints: must match every phrase, must not match any exclusion. */
export function toConstraintExpressions(constraints: TextConstraints | undefined): { required: string | null; excluded: string | null } {
  const phrases = constraints?.phrases ?? [];
  const exclude = constraints?.exclude ?? [];
  return {
    required: phrases.length > 0 ? phrases.map(quoteWords).join(" AND ") : null,
    excluded: exclude.length > 0 ? exclude.map(quoteWords).join(" OR ") : null,
  };
}
