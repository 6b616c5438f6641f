#!/usr/bin/env node
// The operator's commands (`npm run admin -- <command>`), also inside the app container:
//   reset-password <username>   a new password, its sessions signed out, two-factor off
//   reset-site [file]           the site settings replaced by the file's, as on the first start
// They work on DATABASE_URL, else on the running embedded PostgreSQL of `npm start` (DATA_DIR).
import { operatorDatabaseUrl } from '@blog/server-kit';
import { resetPassword } from '../services/auth/dist/admin-cli.js';
import { resetSite } from '../services/posts/dist/admin-cli.js';

const USAGE = 'usage: npm run admin -- reset-password <username> | reset-site [file]';

async function main([command, argument]) {
  if (command === 'reset-password' && argument) {
    const password = await resetPassword(operatorDatabaseUrl(), argument);
    return (
      `New password for ${argument}: ${password}\n` +
      'Its sessions are signed out and its two-factor sign-in is off; change the password in Account after signing in.\n'
    );
  }
  if (command === 'reset-site') {
    const { unplaced, file } = await resetSite(operatorDatabaseUrl(), argument);
    return (
      `The site settings are now those of ${file}; the running site shows them at once.\n` +
      (unplaced
        ? `${unplaced} post(s) have labels the file's tree does not have: give them a place in the Site tab (edit the tree, or edit each post).\n`
        : 'Every post has its place in the tree.\n')
    );
  }
  throw new Error(USAGE);
}

main(process.argv.slice(2)).then(
  (text) => process.stdout.write(text),
  (error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  },
);
