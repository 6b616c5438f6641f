import { escapeHtml } from '@blog/contracts';
import type { Response } from 'express';

/**
 * The small pages that confirmation and unsubscribe links open: self-contained HTML (one
 * inline style sheet, no scripts, no external assets) under a strict policy of their own
 * that still lets the unsubscribe form post to this site.
 */
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export interface PageContent {
  title: string;
  /** Paragraphs of plain text (escaped here). */
  paragraphs: string[];
  /** An optional form posting back to the same URL (the unsubscribe button). */
  form?: { button: string };
  /** More forms posting back to the same URL, each with its hidden fields and radio choices. */
  forms?: PageForm[];
  link?: { href: string; text: string };
}

export interface PageForm {
  button: string;
  hidden?: Record<string, string>;
  choice?: { name: string; legend: string; options: { value: string; label: string; checked: boolean }[] };
}

function renderForm(form: PageForm): string {
  const hidden = Object.entries(form.hidden ?? {})
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  const choice = form.choice
    ? `<fieldset><legend>${escapeHtml(form.choice.legend)}</legend>${form.choice.options
        .map(
          (o) =>
            `<label><input type="radio" name="${escapeHtml(form.choice!.name)}" value="${escapeHtml(o.value)}"${o.checked ? ' checked' : ''}> ${escapeHtml(o.label)}</label>`,
        )
        .join('')}</fieldset>`
    : '';
  return `<form method="post">${hidden}${choice}<button type="submit">${escapeHtml(form.button)}</button></form>`;
}

const STYLE = `
  body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; background: #f4f4f4; color: #222; }
  main { max-width: 32rem; margin: 12vh auto 0; padding: 2rem; background: #fff; border-radius: 8px; box-shadow: 0 1px 4px rgba(0,0,0,.08); }
  h1 { font-size: 1.4rem; margin: 0 0 1rem; }
  p { line-height: 1.5; }
  button { font: inherit; padding: .6rem 1.2rem; border: 0; border-radius: 4px; background: #1f5fa8; color: #fff; cursor: pointer; }
  a { color: #1f5fa8; }
  form { margin: 1rem 0; }
  fieldset { border: 1px solid #ddd; border-radius: 4px; margin: 0 0 1rem; padding: .5rem 1rem; }
  label { display: block; padding: .3rem 0; }
`;

export function renderPage(content: PageContent): string {
  const paragraphs = content.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  const form = content.form
    ? `<form method="post"><button type="submit">${escapeHtml(content.form.button)}</button></form>`
    : '';
  const forms = (content.forms ?? []).map(renderForm).join('\n');
  const link = content.link
    ? `<p><a href="${escapeHtml(content.link.href)}">${escapeHtml(content.link.text)}</a></p>`
    : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(content.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(content.title)}</h1>
${paragraphs}
${form}
${forms}
${link}
</main>
</body>
</html>
`;
}

export function sendPage(res: Response, status: number, content: PageContent): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': PAGE_CSP,
      'Cache-Control': 'no-store',
      'X-Robots-Tag': 'noindex',
      'Referrer-Policy': 'no-referrer',
    })
    .send(renderPage(content));
}
