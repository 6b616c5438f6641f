import {
  horizontalRule,
  insertBlock,
  isUrl,
  makeLink,
  toggleCode,
  toggleLines,
  toggleWrap,
  type TextEdit,
} from './markdownCommands';

/** The text after the edit, with the selection marked as [ ]. */
function apply(text: string, edit: TextEdit): string {
  const next = text.slice(0, edit.from) + edit.insert + text.slice(edit.to);
  return `${next.slice(0, edit.selectFrom)}[${next.slice(edit.selectFrom, edit.selectTo)}]${next.slice(edit.selectTo)}`;
}

describe('editor commands', () => {
  test('bold wraps the selection and unwraps it again', () => {
    expect(apply('make it loud', toggleWrap('make it loud', 8, 12, '**', 'bold text'))).toBe(
      'make it **[loud]**',
    );
    expect(apply('make it **loud**', toggleWrap('make it **loud**', 10, 14, '**', 'bold text'))).toBe(
      'make it [loud]',
    );
    expect(apply('x ', toggleWrap('x ', 2, 2, '_', 'italic text'))).toBe('x _[italic text]_');
  });

  test('headings, quotes and lists act on whole lines, numbered lists count', () => {
    const text = 'one\ntwo\nthree';
    expect(apply(text, toggleLines(text, 1, 6, 'numbered'))).toBe('[1. one\n2. two]\nthree');
    expect(apply(text, toggleLines(text, 9, 9, 'heading'))).toBe('one\ntwo\n## t[]hree');
    expect(apply('- a\n- b', toggleLines('- a\n- b', 0, 7, 'bullet'))).toBe('[a\nb]');
    // A cursor stays in place, after the new prefix, so typing goes on in the heading or item.
    expect(apply('said', toggleLines('said', 0, 0, 'quote'))).toBe('> []said');
    expect(apply('a\n', toggleLines('a\n', 2, 2, 'heading'))).toBe('a\n## []');
    expect(apply('## Steps', toggleLines('## Steps', 5, 5, 'heading'))).toBe('St[]eps');
  });

  test('a link takes the selection as its text and selects the URL to type', () => {
    expect(apply('see the shop', makeLink('see the shop', 8, 12))).toBe('see the [shop]([https://])');
    expect(apply('', makeLink('', 0, 0))).toBe('[[link text]](https://)');
    expect(apply('the shop', makeLink('the shop', 4, 8, 'https://example.com'))).toBe(
      'the [shop](https://example.com)[]',
    );
  });

  test('knows a pasted URL', () => {
    expect(isUrl('https://example.com/a?b=1')).toBe(true);
    expect(isUrl(' mailto:me@example.com ')).toBe(true);
    expect(isUrl('example.com')).toBe(false);
    expect(isUrl('https://a.com and more')).toBe(false);
    expect(isUrl('javascript:alert(1)')).toBe(false);
  });

  test('code is inline on one line and fenced over several', () => {
    expect(apply('run ls now', toggleCode('run ls now', 4, 6))).toBe('run `[ls]` now');
    expect(apply('a\nb', toggleCode('a\nb', 0, 3))).toBe('```\na\nb\n```[]');
  });

  test('blocks stand alone: blank lines around a rule or a picture', () => {
    expect(apply('above', horizontalRule('above', 5, 5))).toBe('above\n\n---[]');
    expect(apply('above\n\nbelow', insertBlock('above\n\nbelow', 6, 6, '![](media:new-1)'))).toBe(
      'above\n\n![](media:new-1)[]\n\nbelow',
    );
  });
});
