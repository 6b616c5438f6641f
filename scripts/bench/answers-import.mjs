// The answers check's import (compare-answers.mjs): the same small WordPress export brought into
// both stacks through the dashboard's route, so the pages, API answers and old addresses of
// imported posts are compared too (the import was split into a runner and mappers by a refactor).
// No pictures: those would be fetched from a server of their own.

const item = ({
  id,
  title,
  slug,
  date,
  status = 'publish',
  type = 'post',
  body,
  categories = '',
  extra = '',
}) => `
<item><title>${title}</title><link>http://old.example/${date.slice(0, 10).replaceAll('-', '/')}/${slug}/</link>
<guid isPermaLink="false">http://old.example/?p=${id}</guid>
<content:encoded><![CDATA[${body}]]></content:encoded>
<wp:post_id>${id}</wp:post_id><wp:post_date>${date}</wp:post_date><wp:post_date_gmt>${date}</wp:post_date_gmt>
<wp:post_name>${slug}</wp:post_name><wp:status>${status}</wp:status><wp:post_type>${type}</wp:post_type>${extra}
${categories}
</item>`;

/** Posts that use what an import converts: markup in titles, shortcodes, embeds, hostile HTML. */
export const WXR = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Old Blog</title><link>http://old.example</link><wp:wxr_version>1.2</wp:wxr_version>
<wp:base_site_url>http://old.example</wp:base_site_url>
${item({
  id: 101,
  title: 'Tips &amp; <em>tricks</em> for the &quot;garage&quot;',
  slug: 'tips-and-tricks',
  date: '2019-05-12 10:30:00',
  body:
    '<h2>Tools</h2>\n<p>A <strong>torque</strong> wrench, a <a href="https://example.com/jack" onclick="x()">jack</a>.</p>\n\n' +
    '[caption id="attachment_7" align="aligncenter" width="300"]A caption without a picture[/caption]\n\n' +
    '[embed]https://www.youtube.com/watch?v=dQw4w9WgXcQ[/embed]\n\n' +
    '<table><tr><th>Part</th><th>Nm</th></tr><tr><td>Wheel</td><td>110</td></tr></table>\n\n' +
    '<script>alert(1)</script><iframe src="https://evil.example/"></iframe>\n\n' +
    '[unknown_shortcode foo="bar"]kept text[/unknown_shortcode] and a [1] footnote.\n\n' +
    '<ul><li>one</li><li>two <em>three</em></li></ul>',
  categories:
    '<category domain="category" nicename="cars"><![CDATA[Cars]]></category>' +
    '<category domain="post_tag" nicename="tools"><![CDATA[Tools]]></category>' +
    '<category domain="post_tag" nicename="how-to"><![CDATA[How To]]></category>',
})}
${item({
  id: 102,
  title: 'Crème brûlée, twice',
  slug: 'creme-brulee',
  date: '2020-02-29 18:00:00',
  body: 'Sugar on top.\n\nA second paragraph, with a line\nbreak.\n\nhttps://www.youtube.com/watch?v=dQw4w9WgXcQ',
  categories: '<category domain="category" nicename="kitchen"><![CDATA[Kitchen]]></category>',
})}
${item({ id: 103, title: 'Still a draft', slug: 'still-a-draft', date: '2021-01-01 09:00:00', status: 'draft', body: 'Not yet.' })}
${item({ id: 104, title: 'Only for me', slug: 'only-for-me', date: '2021-01-02 09:00:00', status: 'private', body: 'Private.' })}
${item({
  id: 105,
  title: 'With a password',
  slug: 'with-a-password',
  date: '2021-01-03 09:00:00',
  body: 'Secret.',
  extra: '<wp:post_password>hunter2</wp:post_password>',
})}
${item({ id: 106, title: 'About me', slug: 'about-me', date: '2018-01-01 09:00:00', type: 'page', body: 'A page.' })}
</channel></rss>
`;

/** Imports WXR on a stack and waits for its end; returns the imported posts, in id order. */
export async function importWxr(stack, token, client) {
  const form = new FormData();
  form.append(
    'categoryMap',
    JSON.stringify({ cars: 'Garage / Automobiles / Car Two', kitchen: 'Food & Bev / Cooking' }),
  );
  form.append('file', new Blob([WXR], { type: 'application/xml' }), 'export.xml');
  const headers = { authorization: `Bearer ${token}` };
  const response = await fetch(`${stack.baseUrl}/api/admin/import`, { method: 'POST', headers, body: form });
  let report = await response.json();
  if (response.status !== 202)
    throw new Error(`import answered ${response.status}: ${JSON.stringify(report)}`);
  const deadline = Date.now() + 120_000;
  while (report.state === 'queued' || report.state === 'running') {
    if (Date.now() > deadline) throw new Error('the import did not end in 2 minutes');
    await new Promise((r) => setTimeout(r, 250));
    report = await (await fetch(`${stack.baseUrl}/api/admin/import/${report.id}`, { headers })).json();
  }
  if (report.state !== 'done') throw new Error(`the import ended ${report.state}: ${JSON.stringify(report)}`);
  const { rows } = await client.query('SELECT id FROM posts.posts WHERE source_id IS NOT NULL ORDER BY id');
  const imported = [];
  for (const { id } of rows) {
    const post = await fetch(`${stack.baseUrl}/api/posts/${id}`, { headers });
    imported.push(await post.json());
  }
  return imported;
}
