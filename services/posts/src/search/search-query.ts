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

/** The words for typo matching: lowercased, distinct, three characters or more (titles' and tags' words are indexed from three). */
export function toTypoWords(input: string): string[] {
  const words = input.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.slice(0, 12).map((w) => w.toLowerCase()))].filter((w) => w.length >= 3);
}

/**
 * How many typos a typed word may hold, by its length, as Meilisearch and Typesense count
 * them: none up to 4 characters, one from 5 to 8, two from 9.
 */
export function typoAllowance(word: string): number {
  const length = [...word].length;
  return length >= 9 ? 2 : length >= 5 ? 1 : 0;
}

/**
 * Typos between two words (optimal string alignment): an insertion, a deletion, a
 * substitution or two neighbouring characters swapped each count one, so "helmte" is one
 * typo from "helmet". Stops counting past `max` (answers max + 1).
 */
export function typoDistance(a: string, b: string, max = Infinity): number {
  const s = [...a];
  const t = [...b];
  if (Math.abs(s.length - t.length) > max) return max + 1;
  let before = new Array<number>(t.length + 1).fill(0);
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = new Array<number>(t.length + 1).fill(0);
    current[0] = i;
    let best = current[0];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        current[j] = Math.min(current[j]!, before[j - 2]! + 1);
      best = Math.min(best, current[j]!);
    }
    if (best > max) return max + 1;
    before = previous;
    previous = current;
  }
  return Math.min(previous[t.length]!, max + 1);
}
