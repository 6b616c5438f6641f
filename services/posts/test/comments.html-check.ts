import { Parser } from 'htmlparser2';

const ALLOWED = new Set([
  'p',
  'br',
  'a',
  'span',
  'strong',
  'em',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
]);

/**
 * What in a comment's HTML could run or load, as a browser-like parser reads it: a tag off
 * the allow-list, an attribute but a link's href and rel, a link that is not http(s), a rel
 * that is not "nofollow ugc noopener". Empty for safe HTML.
 */
export function unsafeParts(html: string): string[] {
  const found: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (!ALLOWED.has(name)) found.push(`<${name}>`);
        for (const [attribute, value] of Object.entries(attributes)) {
          if (name === 'a' && attribute === 'href') {
            if (!/^https?:\/\//i.test(value.trim())) found.push(`href=${value}`);
          } else if (name === 'a' && attribute === 'rel') {
            if (value !== 'nofollow ugc noopener') found.push(`rel=${value}`);
          } else found.push(`${name}[${attribute}]`);
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return found;
}
