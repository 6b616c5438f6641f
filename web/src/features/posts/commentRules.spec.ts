import { ApiError } from '../../api/client';
import {
  characterCount,
  commentCountLabel,
  commentFailureText,
  signInToCommentHref,
  waitText,
} from './commentRules';

describe('comment rules', () => {
  test('the heading counts the comments', () => {
    expect(commentCountLabel(0)).toBe('No comments yet');
    expect(commentCountLabel(1)).toBe('1 comment');
    expect(commentCountLabel(3)).toBe('3 comments');
  });

  test('signing in to comment comes back to the comments of this post', () => {
    const href = signInToCommentHref('/garage/automobiles/car-one');
    expect(href).toBe('/login?next=%2Fgarage%2Fautomobiles%2Fcar-one%23comments');
    expect(new URL(href, 'http://x').searchParams.get('next')).toBe('/garage/automobiles/car-one#comments');
  });

  test('the character count is of the trimmed text, as the server counts', () => {
    expect(characterCount('', 5000)).toEqual({ text: '5,000 characters left', over: false });
    expect(characterCount('  hello  ', 10)).toEqual({ text: '5 characters left', over: false });
    expect(characterCount('x'.repeat(10), 10)).toEqual({ text: '0 characters left', over: false });
    expect(characterCount('x'.repeat(11), 10)).toEqual({ text: '1 character too many', over: true });
    expect(characterCount('x'.repeat(1012), 10)).toEqual({ text: '1,002 characters too many', over: true });
  });

  test('the wait after a 429 in minutes, or hours past the hour', () => {
    expect(waitText(0)).toBe('in 1 minute');
    expect(waitText(61)).toBe('in 2 minutes');
    expect(waitText(3540)).toBe('in 59 minutes');
    expect(waitText(3599)).toBe('in 1 hour');
    expect(waitText(3600)).toBe('in 1 hour');
    expect(waitText(7201)).toBe('in 3 hours');
  });

  test("a refusal shows the server's words; a 429 adds its wait; no answer shows the fallback", () => {
    const tooMany = 'Too many comments; try again later';
    expect(commentFailureText(new ApiError(429, tooMany, null, 600), tooMany, 'F')).toBe(
      'Too many comments; try again later. You can comment again in 10 minutes.',
    );
    expect(commentFailureText(new ApiError(429, null), tooMany, 'F')).toBe(tooMany);
    expect(commentFailureText(new ApiError(400, 'A comment is at most 5000 characters'), tooMany, 'F')).toBe(
      'A comment is at most 5000 characters',
    );
    expect(commentFailureText(new ApiError(503, 'Service unavailable'), tooMany, 'F')).toBe('F');
    expect(commentFailureText(new ApiError(0, null), tooMany, 'F')).toBe('F');
    expect(commentFailureText(new Error('boom'), tooMany, 'F')).toBe('F');
  });
});
