// The differences between the base's public answers and this build's that a session made on
// purpose, each with the commit that made it (found with `git log -S`) and why.
// compare-answers.mjs applies them after its normalising, then compares: whatever still differs
// is a regression. `urls` is matched against "METHOD /path…"; in the answer of `side` ('base' by
// default: what the base said turned into what is meant now; 'build': something this build
// added on purpose, taken out), `from` is replaced by `to`.
export const ALLOWED = [
  {
    commit: '259c43c',
    reason:
      "The fediverse handle : its stylesheet (the footer's and the About page's copyable " +
      'handle) leads the critical CSS inlined in every page',
    urls: /^(GET \/(?!api\/|rss\.xml|sitemap|robots\.txt|uploads\/)|POST \/about)/,
    side: 'build',
    from: /(?<=<style>)(?:\.(?:fediverse-|footer-fediverse)[^\n]*\n)+/,
    to: '',
  },
  {
    commit: 'cf1dc71, d9a65ed',
    reason: "Comments in the web : the comments' stylesheet joins the critical CSS inlined in every page",
    urls: /^(GET \/(?!api\/|rss\.xml|sitemap|robots\.txt|uploads\/)|POST \/about)/,
    side: 'build',
    // Every rule of the comments' stylesheet, first in the inlined CSS (with or without its
    // @media block: d9a65ed moved to clamp()), one rule a line as the comparison splits it.
    from: /(?<=<style>)(?:(?:\.post-comments|\.comments?-|@media \([^)]*\)\{\.post-comments)[^\n]*\n|\}\n)+/,
    to: '',
  },
  {
    commit: 'cf1dc71, de1b061',
    reason:
      "Comments in the web : a published post's page loads its comments with the post " +
      '(cf1dc71); the gateway answers them since de1b061 (none yet: count 0), before that the load ' +
      'failed and the loader data held comments: null',
    urls: /^(GET \/(?!api\/)|POST \/about)/,
    side: 'build',
    from: /,"comments":(?:null|\{"postId":\d+,"count":0,"comments":\[\]\})(?=\}\},"actionData")/,
    to: '',
  },
  {
    commit: 'cf1dc71',
    reason:
      "Comments in the web : the comments section under a published post ('No comments " +
      "yet', or 'The comments could not be loaded.' before de1b061) with the sign-in link",
    urls: /^(GET \/(?!api\/)|POST \/about)/,
    side: 'build',
    from: /<section id="comments" class="post-comments"[\s\S]*?<\/section>\n/,
    to: '',
  },
  {
    commit: '7119dab',
    reason:
      'services/social: the site configuration gains fediverse { handle, avatarImage, ' +
      'approveFollowers } (defaults "blog", "", false), so /api/site and the site every page carries have it',
    urls: /^GET \/api\/site$/,
    side: 'build',
    from: / {2}"fediverse": \{\n {4}"handle": "blog",\n {4}"avatarImage": "",\n {4}"approveFollowers": false\n {2}\},\n/,
    to: '',
  },
  {
    commit: '7119dab',
    reason: 'services/social: the same fediverse settings in the site a page preloads',
    urls: /^(GET \/(?!api\/)|POST \/about)/,
    side: 'build',
    from: /"fediverse":\{"handle":"blog","avatarImage":"","approveFollowers":false\},/,
    to: '',
  },
  {
    commit: '553bb1d',
    reason:
      "The fediverse handle : the site as the gateway serves it carries host (SITE_URL's), " +
      'the server part of @handle@host; in /api/site',
    urls: /^GET \/api\/site$/,
    side: 'build',
    from: /,\n {2}"host": "blog\.example"(?=\n\})/,
    to: '',
  },
  {
    commit: '553bb1d',
    reason: 'The fediverse handle : the same host in the site a page preloads',
    urls: /^(GET \/(?!api\/)|POST \/about)/,
    side: 'build',
    from: /,"host":"blog\.example"/,
    to: '',
  },
  {
    commit: '259c43c',
    reason: "The fediverse handle : the footer's 'Follow on Mastodon' line with the handle",
    urls: /^(GET \/(?!api\/|rss\.xml|sitemap|robots\.txt|uploads\/)|POST \/about)/,
    side: 'build',
    from: /<p class="footer-fediverse">[\s\S]*?<\/p>\n/,
    to: '',
  },
  {
    commit: '259c43c',
    reason:
      "The fediverse handle : the About page's 'Follow on Mastodon' section (/contact is the same page)",
    urls: /^(GET \/(about|contact)|POST \/about)/,
    side: 'build',
    from: /<section class="card fediverse-follow"[\s\S]*?<\/section>\n/,
    to: '',
  },
  {
    commit: '6eb2ee2',
    reason: "Posts as Articles: a visible post's page links its ActivityPub Article in the head",
    urls: /^GET \/(?!api\/)/,
    side: 'build',
    from: / {4}<link rel="alternate" type="application\/activity\+json" href="https:\/\/blog\.example\/post\/\d+" \/>\n/,
    to: '',
  },
];

/**
 * Intended changes of what the content itself becomes, applied to the base's database after its
 * content is written and before anything is asked (every list, count and feed then follows).
 */
export const BASE_DATA = [
  {
    commit: 'd121f3c',
    reason:
      'Import fidelity: a password-protected (or private) WordPress post comes in as a draft listed in ' +
      "the report's restricted; the base published the password-protected one",
    sql: `UPDATE posts.posts SET status = 'draft' WHERE slug = 'with-a-password' AND source_id IS NOT NULL`,
  },
];
