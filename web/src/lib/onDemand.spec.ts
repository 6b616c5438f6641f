import { loadPartsIn, onDemand } from './onDemand';

/** A stand-in for a rendered page: it holds the elements `selectors` find. */
const pageWith = (...selectors: string[]) =>
  ({
    querySelector: (selector: string) => (selectors.includes(selector) ? {} : null),
  }) as unknown as ParentNode;

describe('parts of a page loaded on demand', () => {
  test('the code is fetched once, however many pages ask, and get() has it after load()', async () => {
    let fetched = 0;
    const part = onDemand('.gallery', async () => {
      fetched++;
      return { Gallery: 'the gallery' };
    });
    expect(part.get()).toBeNull();
    const [first, second] = await Promise.all([part.load(), part.load()]);
    await part.load();
    expect(fetched).toBe(1);
    expect(first).toBe(second);
    expect(part.get()).toEqual({ Gallery: 'the gallery' });
  });

  test('a failed fetch rejects, and the next page tries again', async () => {
    let attempts = 0;
    const part = onDemand('.flaky', async () => {
      attempts++;
      if (attempts === 1) throw new Error('network down');
      return 'code';
    });
    await expect(part.load()).rejects.toThrow('network down');
    expect(part.get()).toBeNull();
    await expect(part.load()).resolves.toBe('code');
    expect(attempts).toBe(2);
  });

  test('before hydrating, only the parts the rendered page holds are fetched', async () => {
    const fetched: string[] = [];
    const part = (selector: string) =>
      onDemand(selector, async () => {
        fetched.push(selector);
        return selector;
      });
    const slides = part('.slides');
    const form = part('#form');
    await loadPartsIn(pageWith('#form'));
    expect(fetched).toEqual(['#form']);
    expect(form.get()).toBe('#form');
    expect(slides.get()).toBeNull();
  });
});
