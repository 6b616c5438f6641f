import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';
import { fields, multipart } from './support/media-fixtures.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('post lists and search in PostgreSQL', () => {
  let stack: TestStack;
  let admin: string;

  const create = async (values: Record<string, string>) => {
    const { body, contentType } = multipart(fields(values));
    const response = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    if (response.status !== 201)
      throw new Error(`create failed: ${response.status} ${await response.text()}`);
    return (await response.json()) as Json;
  };
  const titles = async (query: string) => {
    const response = await api(stack, `/api/posts?${query}`);
    expect(response.status).toBe(200);
    return (response.json as unknown as Json[]).map((p) => p.title);
  };

  beforeAll(async () => {
    // The cache is off here so every call reaches the database.
    stack = await startTestStack({ PUBLIC_CACHE_TTL_MS: '0' });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    const posts: Record<string, string>[] = [
      {
        title: 'Setting up the reef aquarium',
        content: 'Live rock and water tests.',
        tags: 'reef',
        category: 'Aquariums',
        date: '2025-01-10T10:00:00Z',
      },
      {
        title: 'Weekend notes',
        content: 'We visited an aquarium shop and bought coral.',
        tags: 'shopping',
        category: 'More',
        date: '2025-01-12T10:00:00Z',
      },
      {
        title: 'Fishing at dawn',
        content: 'The fish were biting early.',
        tags: 'lake',
        category: 'Activities',
        submenu1: 'Fishing',
        date: '2025-02-01T06:00:00Z',
      },
      {
        title: 'Crème brûlée at home',
        content: 'Caramelised sugar.',
        tags: 'dessert',
        category: 'Food & Bev',
        submenu1: 'Cooking',
        date: '2025-02-05T18:00:00Z',
      },
      {
        title: 'MotoGP at Le Mans',
        content: 'Race day.',
        tags: 'racing, france',
        category: 'Activities',
        submenu1: 'Racing',
        submenu2: 'MotoGP',
        date: '2025-05-11T12:00:00Z',
      },
      {
        title: 'Bike One service',
        content: 'Chain and brakes.',
        tags: 'maintenance',
        category: 'Garage',
        submenu1: 'Motorcycles',
        submenu2: 'Bike One',
        date: '2025-03-01T09:00:00Z',
      },
      {
        title: 'Motorcycle winter storage',
        content: 'Battery tender.',
        tags: 'maintenance',
        category: 'Garage',
        submenu1: 'Motorcycles',
        submenu2: 'General',
        date: '2025-03-02T09:00:00Z',
      },
      {
        title: 'Coral fragging',
        content: 'Cutting corals in the reef tank.',
        tags: 'reef, coral',
        category: 'Aquariums',
        date: '2025-03-20T09:00:00Z',
      },
    ];
    for (const post of posts) await create(post);
  }, 60_000);
  afterAll(() => stack?.stop());

  it('lists newest first with X-Total-Count, paged', async () => {
    const page1 = await api(stack, '/api/posts?limit=3');
    expect(page1.headers.get('x-total-count')).toBe('8');
    expect((page1.json as unknown as Json[]).map((p) => p.title)).toEqual([
      'MotoGP at Le Mans',
      'Coral fragging',
      'Motorcycle winter storage',
    ]);
    expect(await titles('limit=3&page=3')).toEqual(['Weekend notes', 'Setting up the reef aquarium']);
    expect(await titles('limit=3&page=9')).toEqual([]);
  });

  it('filters by category, submenus, tag and dates in the database', async () => {
    expect(await titles('category=aquariums')).toEqual(['Coral fragging', 'Setting up the reef aquarium']);
    expect(await titles('category=Garage&submenu1=Motorcycles')).toEqual([
      'Motorcycle winter storage',
      'Bike One service',
    ]);
    expect(await titles('category=garage&submenu1=motorcycles&submenu2=bike-one')).toEqual([
      'Bike One service',
    ]);
    expect(await titles('tag=REEF')).toEqual(['Coral fragging', 'Setting up the reef aquarium']);
    expect(await titles('from=2025-02-01&to=2025-03-01')).toEqual([
      'Bike One service',
      'Crème brûlée at home',
      'Fishing at dawn',
    ]);
    expect(await titles('category=Boats')).toEqual([]);
  });

  it.each([
    ['limit=0', 'limit must be at least 1'],
    ['limit=1000', 'limit must be at most 100'],
    ['page=abc', 'page must be a number'],
    ['from=yesterday', 'from: must be a date'],
  ])('answers 400 for %s', async (query, error) => {
    const response = await api(stack, `/api/posts?${query}`);
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error });
  });

  it('stems words (fishing finds "fish", "biting" finds "bite")', async () => {
    expect(await titles('search=fish')).toEqual(['Fishing at dawn']);
    expect(await titles('search=bites')).toEqual(['Fishing at dawn']);
  });

  it('matches the last word as a prefix', async () => {
    expect(await titles('search=aqua')).toEqual(['Setting up the reef aquarium', 'Weekend notes']);
    expect(await titles('search=reef%20aqu')).toEqual(['Setting up the reef aquarium']);
  });

  it('ranks title over tags over content', async () => {
    // "coral": title of one, tag of the same, content of another.
    expect(await titles('search=coral')).toEqual(['Coral fragging', 'Weekend notes']);
    // "aquarium" is in one title and in another's content: the title match ranks first.
    expect((await titles('search=aquarium'))[0]).toBe('Setting up the reef aquarium');
  });

  it('ignores accents', async () => {
    expect(await titles('search=creme%20brulee')).toEqual(['Crème brûlée at home']);
    expect(await titles('search=cr%C3%A8me')).toEqual(['Crème brûlée at home']);
  });

  it('tolerates a typo when full text finds nothing', async () => {
    expect(await titles('search=aquarim')).toContain('Setting up the reef aquarium');
    expect(await titles('search=motorcyle')).toContain('Motorcycle winter storage');
    expect(await titles('search=zzqqxx')).toEqual([]);
  });

  it('finds the right word for a misspelt one: swapped letters, next to a correct word, within filters', async () => {
    expect(await titles('search=fishign')).toEqual(['Fishing at dawn']);
    expect(await titles('search=reef%20aquarim')).toEqual(['Setting up the reef aquarium']);
    expect(await titles('search=aquarim&category=Aquariums')).toEqual(['Setting up the reef aquarium']);
    expect(await titles('search=aquarim&category=More')).toEqual([]);
  });

  it('forgives typos by word length, as Meilisearch and Typesense count them', async () => {
    const added = [
      await create({ title: 'Cable ties everywhere', content: 'x', tags: 'wiring', category: 'More' }),
      await create({ title: 'Carburettor rebuild', content: 'x', tags: 'engine', category: 'More' }),
    ];
    const cable = ['Cable ties everywhere'];
    const carburettor = ['Carburettor rebuild'];
    // 5 to 8 characters: one typo of any kind (substitution, insertion, deletion, swapped pair).
    for (const typo of ['cabke', 'caable', 'acble', 'cbale', 'wirnig', 'wirng'])
      expect([typo, await titles(`search=${typo}`)]).toEqual([typo, cable]);
    for (const twoTypos of ['acbel', 'cxbke', 'wrinig'])
      expect([twoTypos, await titles(`search=${twoTypos}`)]).toEqual([twoTypos, []]);
    // 9 or more: two typos, not three.
    for (const typo of ['carbuertor', 'crabuerttor', 'carburretor', 'karburetor'])
      expect([typo, await titles(`search=${typo}`)]).toEqual([typo, carburettor]);
    expect(await titles('search=krabuertor')).toEqual([]);
    // Shorter words match exactly or not at all: a 4-letter word with a typo finds nothing.
    expect(await titles('search=tiez')).toEqual([]);
    expect(await titles('search=cble')).toEqual([]);
    expect(await titles('search=ties')).toEqual(cable);
    // Junk in front of a real word is not a typo of it.
    for (const junk of ['zzqxcable', 'zzqxcarburettor', 'zzqxwiring'])
      expect([junk, await titles(`search=${junk}`)]).toEqual([junk, []]);
    // The last word still matches as a prefix.
    expect(await titles('search=carbur')).toEqual(carburettor);
    for (const post of added) await api(stack, `/api/posts/${post.id}`, { method: 'DELETE', token: admin });
  });

  it('corrects typos against titles and tags as they are after edits and deletions', async () => {
    const post = await create({
      title: 'Sourdough starter',
      content: 'Flour.',
      tags: 'baking',
      category: 'More',
    });
    expect(await titles('search=sourdouhg')).toEqual(['Sourdough starter']);
    const { body, contentType } = multipart(
      fields({ title: 'Rye starter', content: 'Flour.', tags: 'baking', category: 'More' }),
    );
    const updated = await fetch(`${stack.baseUrl}/api/posts/${post.id}`, {
      method: 'PUT',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    expect(updated.status).toBe(200);
    expect(await titles('search=sourdouhg')).toEqual([]);
    expect(await titles('search=bakign')).toEqual(['Rye starter']);
    const deleted = await api(stack, `/api/posts/${post.id}`, { method: 'DELETE', token: admin });
    expect(deleted.status).toBeLessThan(300);
    expect(await titles('search=bakign')).toEqual([]);
  });

  it('combines search with filters and reports the total', async () => {
    const response = await api(stack, '/api/posts?search=reef&category=Aquariums&limit=1');
    expect(response.headers.get('x-total-count')).toBe('2');
    expect(response.json).toHaveLength(1);
  });

  it.each([
    "'",
    '"',
    "a' OR 1=1 --",
    '&',
    '|',
    ':*',
    '!(',
    "'; DROP TABLE posts.posts; --",
    'a & b | !c',
    '\\',
    '%',
    '%%%',
    '<script>',
    '🙂',
    'x'.repeat(200),
  ])('is safe for the query %j', async (query) => {
    const response = await api(stack, `/api/posts?search=${encodeURIComponent(query)}`);
    expect(response.status).toBe(200);
    expect(Array.isArray(response.json)).toBe(true);
  });

  it('still has every post after hostile queries', async () => {
    expect((await api(stack, '/api/posts')).headers.get('x-total-count')).toBe('8');
  });
});
