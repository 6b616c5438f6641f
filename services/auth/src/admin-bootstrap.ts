import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AUTH_CONFIG, type AuthConfig } from './config.js';
import { LoginThrottle } from './auth/login-throttle.js';
import { SecretBox } from './auth/secret-box.js';
import { UsersService } from './users/users.service.js';

export const CREDENTIALS_FILE = 'admin-credentials.txt';

/**
 * At start: seals two-factor secrets still stored in the clear, drops ended limit windows, and
 * makes sure the owner can sign in: ADMIN_USERNAME/ADMIN_PASSWORD when set, otherwise
 * on the first run an `admin` with a random password, printed once and kept (0600) in DATA_DIR.
 */
@Injectable()
export class AdminBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger(AdminBootstrap.name);

  constructor(
    private readonly users: UsersService,
    private readonly throttle: LoginThrottle,
    private readonly box: SecretBox,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.throttle.purgeExpired();
    // TOTP secrets stored before they were encrypted are sealed here rather than in a
    // migration: a migration does not see the key (TOTP_ENCRYPTION_KEY or JWT_SECRET).
    const sealed = await this.users.sealClearSecrets((secret, id) => this.box.seal(secret, id));
    if (sealed > 0) this.logger.log(`Encrypted ${sealed} two-factor secret(s) stored in the clear`);
    const { ADMIN_USERNAME, ADMIN_PASSWORD } = this.config;
    if (ADMIN_USERNAME && ADMIN_PASSWORD) {
      await this.users.ensureAdmin(ADMIN_USERNAME, ADMIN_PASSWORD);
      this.logger.log(`Admin "${ADMIN_USERNAME}" ensured from ADMIN_USERNAME/ADMIN_PASSWORD`);
      return;
    }
    if (await this.users.hasAdmin()) return;
    const username = ADMIN_USERNAME ?? 'admin';
    const password = randomBytes(18).toString('base64url');
    try {
      await this.users.create(username, password, 'admin');
    } catch (error) {
      // Another replica created it first: its password is the one printed there.
      if (await this.users.hasAdmin()) return;
      throw error;
    }
    const file = join(this.config.DATA_DIR, CREDENTIALS_FILE);
    await mkdir(this.config.DATA_DIR, { recursive: true });
    await writeFile(file, `username: ${username}\npassword: ${password}\n`, { mode: 0o600 });
    process.stdout.write(
      `\n  Created the admin account.\n    username: ${username}\n    password: ${password}\n` +
        `  (also saved in ${file}; change it by setting ADMIN_PASSWORD)\n\n`,
    );
  }
}
