import { FEDIVERSE_AVATAR_ERROR, FEDIVERSE_HANDLE_ERROR } from '@blog/contracts/site-settings';
import { fediverseAddress } from '@blog/contracts/site';
import {
  blockDoneText,
  blockLabel,
  blockTargetsOf,
  countOf,
  deliveryProblemText,
  fediverseFieldErrors,
} from './fediverseTab';

const remote = { local: false, handle: '@ann@social.example', url: 'https://social.example/@ann' };

describe('the Fediverse tab and the blocks from comments', () => {
  it("builds the blog's address from the handle (the default when unset) and the served host", () => {
    expect(fediverseAddress({ host: 'blog.example' })).toBe('@blog@blog.example');
    expect(
      fediverseAddress({
        host: 'localhost:3000',
        fediverse: { handle: 'anna_garage', approveFollowers: false, avatarImage: '' },
      }),
    ).toBe('@anna_garage@localhost:3000');
    expect(fediverseAddress({})).toBeNull();
  });

  it('counts in words', () => {
    expect([countOf(0, 'comment'), countOf(1, 'comment'), countOf(3, 'comment')]).toEqual([
      'no comments',
      '1 comment',
      '3 comments',
    ]);
  });

  it('says what a block removed, and nothing when it removed nothing', () => {
    expect(blockDoneText('The server spam.example', { removedComments: 2, removedFollowers: 1 })).toBe(
      'The server spam.example blocked. Removed 2 comments and 1 follower.',
    );
    expect(blockDoneText('@ann@social.example', { removedComments: 0, removedFollowers: 0 })).toBe(
      '@ann@social.example blocked.',
    );
  });

  it('labels an account block by its actor and a server block by its domain', () => {
    expect(blockLabel({ actor: 'https://a.example/users/x', domain: null })).toEqual({
      kind: 'Account',
      target: 'https://a.example/users/x',
    });
    expect(blockLabel({ actor: null, domain: 'b.example' })).toEqual({ kind: 'Server', target: 'b.example' });
  });

  it("finds a remote author's account and server; a local author has neither", () => {
    expect(blockTargetsOf({ ...remote, actorUri: 'https://Social.Example/users/ann' })).toEqual({
      actor: 'https://Social.Example/users/ann',
      domain: 'social.example',
    });
    // Without the actor id: the server from the profile page, else from the handle.
    expect(blockTargetsOf(remote)).toEqual({ actor: null, domain: 'social.example' });
    expect(blockTargetsOf({ ...remote, url: null, handle: 'bob@Other.Example' })).toEqual({
      actor: null,
      domain: 'other.example',
    });
    expect(blockTargetsOf({ ...remote, url: 'not a url', handle: null })).toEqual({
      actor: null,
      domain: null,
    });
    expect(blockTargetsOf({ local: true, handle: 'reader', url: null })).toEqual({
      actor: null,
      domain: null,
    });
  });

  it('says in plain words why deliveries to a server were given up', () => {
    expect(deliveryProblemText({ reason: 'gone', statusCode: 410 })).toBe(
      'The server answered 410 Gone: its accounts are gone.',
    );
    expect(deliveryProblemText({ reason: 'gone', statusCode: 404 })).toBe(
      'The server answered 404 Not Found: its accounts are gone.',
    );
    expect(deliveryProblemText({ reason: 'expired', statusCode: 503 })).toBe('Not reachable for 48 hours.');
    expect(deliveryProblemText({ reason: 'dropped', statusCode: null })).toBe('Too many failures in a row.');
  });

  it('checks the Site tab fields by the contract rules', () => {
    const ok = { handle: 'anna_garage', approveFollowers: false, avatarImage: '/uploads/a.webp' };
    expect(fediverseFieldErrors(ok)).toEqual({});
    expect(fediverseFieldErrors({ ...ok, avatarImage: '' })).toEqual({});
    expect(fediverseFieldErrors({ ...ok, handle: 'Anna Garage' })).toEqual({
      handle: FEDIVERSE_HANDLE_ERROR,
    });
    expect(fediverseFieldErrors({ ...ok, handle: 'x'.repeat(31) })).toEqual({
      handle: FEDIVERSE_HANDLE_ERROR,
    });
    expect(fediverseFieldErrors({ ...ok, handle: '' })).toEqual({ handle: FEDIVERSE_HANDLE_ERROR });
    expect(fediverseFieldErrors({ ...ok, avatarImage: 'https://x.example/a.png' })).toEqual({
      avatarImage: FEDIVERSE_AVATAR_ERROR,
    });
    expect(fediverseFieldErrors({ ...ok, avatarImage: `/${'a'.repeat(500)}` })).toEqual({
      avatarImage: FEDIVERSE_AVATAR_ERROR,
    });
  });
});
