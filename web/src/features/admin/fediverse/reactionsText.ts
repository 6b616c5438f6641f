/** "2 likes, 1 boost, 1 quote on the fediverse" (the quotes only when there are some). */
export function reactionsText(counts: { likes: number; announces: number; quotes?: number }): string {
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return [
    count(counts.likes, 'like', 'likes'),
    count(counts.announces, 'boost', 'boosts'),
    ...(counts.quotes ? [count(counts.quotes, 'quote', 'quotes')] : []),
  ]
    .join(', ')
    .concat(' on the fediverse');
}
