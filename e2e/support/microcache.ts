/**
 * nginx keys its microcache by the wall-clock second too ($blog_cache_second in
 * infra/nginx/nginx.conf): a read and its repeat across a second's turn are MISS, MISS.
 * A check of what the cache does runs its reads through this: they start early in a second,
 * and a run that still crossed into the next one (a loaded machine) is run again, with the
 * next attempt number so the caller can ask fresh URLs. The run's result is checked after.
 */
export async function withinOneSecond<T>(reads: (attempt: number) => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    // nginx and this process read the same clock.
    if (Date.now() % 1000 > 300) await new Promise((wait) => setTimeout(wait, 1005 - (Date.now() % 1000)));
    const second = Math.floor(Date.now() / 1000);
    const result = await reads(attempt);
    if (Math.floor(Date.now() / 1000) === second || attempt === attempts) return result;
  }
}
