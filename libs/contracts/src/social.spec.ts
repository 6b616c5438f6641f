import { parseSiteConfig, SiteConfigError } from './site-config.js';
import { fediverseOf } from './site-settings.js';
import {
  articlePostId,
  blockInputSchema,
  hostInDomain,
  reactionCommandSchema,
  reactionSubject,
  SocialErrors,
} from './social.js';

const site = (extra: Record<string, unknown> = {}) => ({
  title: 'Blog',
  searchTitle: 'Search',
  welcome: { title: 'Hi', text: '' },
  about: { title: 'About', text: '' },
  bannerImage: '',
  footerText: '',
  categories: [{ label: 'Projects', subcategories: [{ label: 'General' }] }],
  ...extra,
});

describe('block input', () => {
  it('takes an actor URL or a domain (lowercased, trailing dot dropped)', () => {
    expect(blockInputSchema.parse({ actor: 'https://m.example/users/a' })).toEqual({
      actor: 'https://m.example/users/a',
    });
    expect(blockInputSchema.parse({ domain: ' Spam.Example. ' })).toEqual({ domain: 'spam.example' });
  });

  it.each([
    [{ actor: 'https://m.example/users/a', domain: 'm.example' }, SocialErrors.blockTarget],
    [{}, SocialErrors.blockTarget],
    [{ domain: 'has space.example' }, SocialErrors.blockDomain],
    [{ domain: '-bad.example' }, SocialErrors.blockDomain],
    [{ domain: 'evil%.example' }, SocialErrors.blockDomain],
    [{ actor: 'acct:a@m.example' }, SocialErrors.blockActor],
  ])('refuses %j', (input, error) => {
    const result = blockInputSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.message).toBe(error);
  });

  it('matches a server and its sub-domains, not a look-alike', () => {
    expect(hostInDomain('spam.example', 'spam.example')).toBe(true);
    expect(hostInDomain('eu.spam.example', 'spam.example')).toBe(true);
    expect(hostInDomain('notspam.example', 'spam.example')).toBe(false);
  });
});

describe('fediverse site settings', () => {
  it('default to the handle "blog", followers accepted at once, no avatar', () => {
    const defaults = {
      handle: 'blog',
      approveFollowers: false,
      avatarImage: '',
      postFormat: 'article',
      quotePolicy: 'anyone',
      alsoKnownAs: [],
      movedTo: '',
      indexable: true,
      discoverable: true,
      showFollowing: true,
    };
    expect(parseSiteConfig(site()).fediverse).toEqual(defaults);
    // A configuration stored before the blog joined the fediverse has none: fediverseOf fills the defaults.
    expect(fediverseOf({})).toEqual(defaults);
  });

  it('keeps a valid handle, approval and avatar path', () => {
    const fediverse = {
      handle: 'anna_garage',
      approveFollowers: true,
      avatarImage: '/uploads/site/avatar.webp',
      postFormat: 'note',
      quotePolicy: 'followers',
      alsoKnownAs: ['https://mastodon.example/users/anna'],
      movedTo: 'https://other.example/users/anna',
      indexable: false,
      discoverable: false,
      showFollowing: false,
    };
    expect(parseSiteConfig(site({ fediverse })).fediverse).toEqual(fediverse);
  });

  it.each([
    [{ handle: 'Anna' }, /fediverse handle must be 1-30 lowercase letters/],
    [{ handle: '' }, /fediverse handle/],
    [{ handle: 'a'.repeat(31) }, /fediverse handle/],
    [{ handle: 'anna@garage' }, /fediverse handle/],
    [{ avatarImage: 'https://elsewhere.example/a.png' }, /fediverse avatar must be a path of this site/],
    [{ approveFollowers: 'yes' }, /fediverse → approveFollowers/],
    [{ postFormat: 'page' }, /postFormat must be "article" or "note"/],
    [{ quotePolicy: 'friends' }, /quotePolicy must be/],
    [{ alsoKnownAs: ['javascript:alert(1)'] }, /fediverse → alsoKnownAs.*actor/],
    [{ alsoKnownAs: Array.from({ length: 11 }, (_, i) => `https://m.example/u/${i}`) }, /at most 10/],
    [{ movedTo: 'not a url' }, /fediverse → movedTo/],
    [{ indexable: 'no' }, /indexable must be true or false/],
  ])('refuses %j naming the setting', (fediverse, message) => {
    expect(() => parseSiteConfig(site({ fediverse }))).toThrow(SiteConfigError);
    expect(() => parseSiteConfig(site({ fediverse }))).toThrow(message);
  });
});

describe('articlePostId', () => {
  it('reads the post of one of our Article ids only', () => {
    expect(articlePostId('https://blog.example/post/42', 'https://blog.example')).toBe(42);
    expect(articlePostId('https://blog.example/post/42', 'https://blog.example/')).toBe(42);
    for (const other of [
      'https://other.example/post/42',
      'https://blog.example/post/42/',
      'https://blog.example/post/042',
      'https://blog.example/post/4x',
      'https://blog.example/post/99999999999',
      'https://blog.example.evil/post/42',
    ])
      expect([other, articlePostId(other, 'https://blog.example')]).toEqual([other, null]);
  });
});

describe('reactionSubject', () => {
  it('tells a post from a note of ours, and is null for anything else', () => {
    const origin = 'https://blog.example';
    expect(reactionSubject('https://blog.example/post/7', origin)).toEqual({ postId: 7 });
    expect(reactionSubject('https://blog.example/notes/12', origin)).toEqual({ noteId: 12 });
    for (const other of [
      'https://other.example/notes/12',
      'https://blog.example/notes/12/',
      'https://blog.example/notes/012',
      'https://blog.example/notes/',
      'https://blog.example/note/12',
      'https://blog.example.evil/notes/12',
    ])
      expect([other, reactionSubject(other, origin)]).toEqual([other, null]);
  });

  it('a reaction command names a post or a note, not both, not neither', () => {
    const base = {
      activityId: 'https://m.example/likes/1',
      actorUri: 'https://m.example/users/a',
      kind: 'like',
    };
    expect(reactionCommandSchema.safeParse({ ...base, postId: 3 }).success).toBe(true);
    expect(reactionCommandSchema.safeParse({ ...base, noteId: 3 }).success).toBe(true);
    expect(reactionCommandSchema.safeParse({ ...base, postId: 3, noteId: 3 }).success).toBe(false);
    expect(reactionCommandSchema.safeParse(base).success).toBe(false);
    expect(reactionCommandSchema.safeParse({ ...base, noteId: 0 }).success).toBe(false);
  });
});
