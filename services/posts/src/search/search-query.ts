/**
 * Builds a to_tsquery string from what a visitor typed. Only letters and digits survive,
 * so quotes, &, |, :*, parentheses or SQL can never change the query's shape; the words
 * are ANDed and the last one matches as a prefix ("aqua" finds "aquarium").
 */
export function toPrefixTsquery(input: string): string | null {
  const words = input.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
  const usable = words.slice(0, 12).map((w) => w.toLowerCase());
  if (usable.length === 0) return null;
  const last = usable.length - 1;
  return usable.map((word, i) => `'${word}'${i === last ? ':*' : ''}`).join(' & ');
}

/** The words for typo matching: lowercased, distinct, three characters or more (shorter ones have too few trigrams to compare). */
export function toTypoWords(input: string): string[] {
  const words = input.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.slice(0, 12).map((w) => w.toLowerCase()))].filter((w) => w.length >= 3);
}
