// The embedded stack's servers in one Node process (what `npm start` runs by default): the five
// services and the gateway, each its own Nest app with its own config. They listen on their TCP
// ports as in separate processes, but call each other without the socket (a server answers the
// clients of its own process directly, through JSON as on the wire). One copy of Node, Nest,
// TypeORM and the rest instead of six is most of the memory saved; compose and Kubernetes keep
// one container per service (the same modules). Configuration comes from the environment the
// launcher gives, as each service's main.js reads it.
import { exitOnConfigError } from '@blog/server-kit';
import { createGateway, loadGatewayConfig } from '../../gateway/dist/index.js';
import { loadAuthConfig, startAuthService } from '../../services/auth/dist/index.js';
import { loadMailConfig, startMailService } from '../../services/mail/dist/index.js';
import { loadMediaConfig, startMediaService } from '../../services/media/dist/index.js';
import { loadPostsConfig, startPostsService } from '../../services/posts/dist/index.js';
import { loadSocialConfig, startSocialService } from '../../services/social/dist/index.js';

/** Closed in this order on a signal: the gateway first, so no request reaches a closed service. */
const apps = [];

async function main() {
  const env = process.env;
  // START_TIMINGS=1: ms since this process began, at each step (`npm run bench -- start`).
  const timings = env.START_TIMINGS === '1' ? [] : null;
  const mark = (step) => timings?.push(`${step} ${Math.round(performance.now())}`);
  mark('modules loaded');
  // Every config is read before anything starts: a bad variable stops here with its name.
  const configs = {
    auth: loadAuthConfig(env),
    // Articles' and e-mails' absolute links: the same default address as mail and social.
    posts: loadPostsConfig({ ...env, SITE_URL: env.SITE_URL || `http://localhost:${env.PORT}` }),
    media: loadMediaConfig(env),
    // E-mail links need an absolute address: without SITE_URL, the port the site answers on.
    mail: loadMailConfig({ ...env, SITE_URL: env.SITE_URL || `http://localhost:${env.PORT}` }),
    // The fediverse's ids (a reaction's post) start with the same address.
    social: loadSocialConfig({ ...env, SITE_URL: env.SITE_URL || `http://localhost:${env.PORT}` }),
    gateway: loadGatewayConfig(env),
  };
  await databaseUp();
  mark('database up');
  // Posts first: media's first sweep asks it for pending items at once.
  const first = await Promise.all([startPostsService(configs.posts, env), startAuthService(configs.auth)]);
  mark('posts+auth up');
  const then = await Promise.all([
    startMediaService(configs.media, env),
    startMailService(configs.mail),
    startSocialService(configs.social),
  ]);
  mark('media+mail+social up');
  apps.push(await createGateway(configs.gateway, env), ...first, ...then);
  mark('gateway up');
  if (timings) process.stdout.write(`[servers] timings (ms): ${timings.join(', ')}\n`);
  takeOverSignals();
}

/**
 * The launcher starts this process while PostgreSQL starts (DATABASE_STARTING=1), so the code
 * above loads meanwhile; asked over IPC, it answers once the database is up. A launcher gone
 * before then leaves nothing to wait for.
 */
function databaseUp() {
  if (process.env.DATABASE_STARTING !== '1' || !process.send) return;
  if (!process.connected) process.exit(1); // gone while this process loaded
  return new Promise((resolve) => {
    const launcherGone = () => process.exit(1);
    const onMessage = (message) => {
      if (message?.database !== 'up') return;
      process.off('message', onMessage);
      process.off('disconnect', launcherGone);
      process.channel?.unref(); // the channel alone keeps nothing running, as without it
      resolve();
    };
    process.on('message', onMessage);
    process.once('disconnect', launcherGone);
    process.send({ waitingFor: 'database' });
  });
}

/**
 * Each Nest app listens for the stop signals itself and, once closed, sends the signal to its
 * process again: the first app done would end the process under the others. One handler here
 * closes them all, the gateway first, then exits.
 */
function takeOverSignals() {
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR2'];
  for (const signal of signals) process.removeAllListeners(signal);
  let closing = false;
  const close = async (signal) => {
    if (closing) return;
    closing = true;
    const [gateway, ...services] = apps;
    await gateway.close().catch(() => {});
    await Promise.all(services.map((app) => app.close().catch(() => {})));
    process.exit(signal === 'SIGINT' ? 130 : 0);
  };
  for (const signal of signals) process.on(signal, () => void close(signal));
}

main().catch(exitOnConfigError);
