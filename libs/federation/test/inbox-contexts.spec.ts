import { contextsAreKnown } from '../src/inbox.js';

const AS = 'https://www.w3.org/ns/activitystreams';
const MASTODON_CONTEXT = [AS, 'https://w3id.org/security/v1', { toot: 'http://joinmastodon.org/ns#' }];

/**
 * Which activities the inbox may queue without Fedify's own reading first: those whose every
 * JSON-LD context, at any depth, is built into Fedify or written inline. Any other context is
 * fetched, and may fail, so Fedify reads it before it is answered (a 400 when it cannot).
 */
describe('contextsAreKnown', () => {
  it.each([
    ['the ActivityStreams context', { '@context': AS, type: 'Create' }],
    ["Mastodon's list of built-in and inline contexts", { '@context': MASTODON_CONTEXT, type: 'Create' }],
    ['no context at all', { type: 'Create' }],
    ['a known context in an embedded object', { '@context': AS, object: { '@context': AS, type: 'Note' } }],
    [
      'known contexts in a list of objects',
      { '@context': AS, tag: [{ '@context': [AS] }, { type: 'Mention' }] },
    ],
  ])('takes %s', (_name, json) => {
    expect(contextsAreKnown(json)).toBe(true);
  });

  it.each([
    ['a context on some server', { '@context': 'https://evil.example/context', type: 'Create' }],
    ['one in a list', { '@context': [AS, 'https://evil.example/context'], type: 'Create' }],
    ['one in an embedded object', { '@context': AS, object: { '@context': 'https://evil.example/c' } }],
    [
      'one deep in a list of tags',
      { '@context': AS, object: { tag: [{ '@context': ['http://x.example/'] }] } },
    ],
    ['an inline context that imports another', { '@context': [AS, { '@import': 'https://evil.example/c' }] }],
    [
      'a scoped context inside an inline one',
      { '@context': [AS, { x: { '@context': 'https://e.example/' } }] },
    ],
    ['a context that is a number', { '@context': 7 }],
    ['a context that is null', { '@context': null }],
  ])('refuses %s', (_name, json) => {
    expect(contextsAreKnown(json)).toBe(false);
  });
});
