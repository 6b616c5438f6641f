import { formSignature, newIdempotencyKey, submissionFor } from './submission';

const form = (title: string, file?: File) => {
  const body = new FormData();
  body.append('title', title);
  body.append('content', 'Text');
  if (file) body.append('files', file);
  return body;
};
const file = (name: string, bytes: string, lastModified = 1_700_000_000_000) =>
  new File([bytes], name, { type: 'image/jpeg', lastModified });

describe('post form submissions and their Idempotency-Key', () => {
  it('the same form sent again reuses the key; a changed one gets a new key', () => {
    const first = submissionFor(form('A', file('a.jpg', 'xx')), null, 1);
    expect(first.key).toMatch(/^[0-9a-f]{32}$/);
    expect(submissionFor(form('A', file('a.jpg', 'xx')), first, 2)).toBe(first);
    expect(submissionFor(form('B', file('a.jpg', 'xx')), first, 2).key).not.toBe(first.key);
    // Another file (other size or date) is another submission.
    expect(submissionFor(form('A', file('a.jpg', 'xxx')), first, 2).key).not.toBe(first.key);
    expect(submissionFor(form('A', file('a.jpg', 'xx', 5)), first, 2).key).not.toBe(first.key);
    expect(submissionFor(form('A'), first, 2).key).not.toBe(first.key);
  });

  it('signs fields in order with files by name, size and date', () => {
    expect(formSignature(form('A', file('a.jpg', 'xx')))).toBe(
      JSON.stringify([
        ['title', 'A'],
        ['content', 'Text'],
        ['files', 'a.jpg', '2', '1700000000000'],
      ]),
    );
  });

  it('keys are random', () => {
    const keys = new Set(Array.from({ length: 200 }, newIdempotencyKey));
    expect(keys.size).toBe(200);
  });
});
