// `npm run bench`: runs every benchmark against the built stack and prints the figures.
// Build first (`npm run build`); the launcher builds what is missing otherwise.
import { benchAuth } from './auth.mjs';
import { benchPosts, benchPostsSearch } from './posts.mjs';
import { benchMedia } from './media.mjs';
import { benchMail } from './mail.mjs';
import { benchWeb } from './web.mjs';
import { benchSeo } from './seo.mjs';
import { benchTopology } from './topology.mjs';
import { benchFaults } from './faults.mjs';
import { benchContent } from './content.mjs';
import { benchExport } from './export.mjs';
import { benchImport } from './import.mjs';
import { benchViews } from './views.mjs';
import { benchPages } from './pages.mjs';
import { benchMemory } from './memory.mjs';
import { benchStart } from './start.mjs';
import { benchAnswers } from './compare-answers.mjs';
import { benchFederation } from './federation.mjs';
import { benchInbox } from './inbox.mjs';
import { benchNewsletter } from './newsletter.mjs';
import { benchReader } from './reader.mjs';
import { benchBackup } from './backup.mjs';

const benches = {
  auth: benchAuth,
  posts: benchPosts,
  'posts-search': benchPostsSearch,
  media: benchMedia,
  mail: benchMail,
  web: benchWeb,
  seo: benchSeo,
  topology: benchTopology,
  faults: benchFaults,
  content: benchContent,
  import: benchImport,
  export: benchExport,
  views: benchViews,
  pages: benchPages,
  memory: benchMemory,
  start: benchStart,
  answers: benchAnswers,
  federation: benchFederation,
  inbox: benchInbox,
  newsletter: benchNewsletter,
  reader: benchReader,
  backup: benchBackup,
};
const only = process.argv.slice(2);
const results = {};
for (const [name, run] of Object.entries(benches)) {
  // posts-search is part of posts, memory takes its own quarter hour, answers is a check (it
  // builds a base revision), reader seeds 100,000 entries and backup writes 1 GB, so they run
  // only when named.
  if (
    only.length
      ? !only.includes(name)
      : ['posts-search', 'memory', 'answers', 'reader', 'backup'].includes(name)
  )
    continue;
  process.stderr.write(`[bench] ${name}...\n`);
  results[name] = await run();
  process.stdout.write(`${name}: ${JSON.stringify(results[name], null, 2)}\n`);
}
// The answers check fails the run on a difference it does not list as intended.
if (results.answers?.different) process.exitCode = 1;
