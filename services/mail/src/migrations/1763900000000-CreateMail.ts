import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateMail1763900000000 implements MigrationInterface {
  name = 'CreateMail1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Contact messages are stored before they are sent; next_attempt_at is both the retry
    // time and the lease a sender takes, so a crashed sender's message is tried again.
    await queryRunner.query(`
      CREATE TABLE contact_messages (
        id serial PRIMARY KEY,
        name varchar(100) NOT NULL,
        email varchar(254) NOT NULL,
        subject varchar(200) NOT NULL,
        message text NOT NULL,
        ip varchar(64) NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent')),
        attempts int NOT NULL DEFAULT 0,
        last_error text,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX contact_messages_due_idx ON contact_messages (next_attempt_at) WHERE status = 'pending'`,
    );
    await queryRunner.query(`CREATE INDEX contact_messages_created_idx ON contact_messages (created_at, id)`);

    // Per-IP counters of the public forms, shared by every replica.
    await queryRunner.query(`
      CREATE TABLE form_limits (
        key text PRIMARY KEY,
        hits int NOT NULL,
        window_started_at timestamptz NOT NULL
      )`);

    await queryRunner.query(`
      CREATE TABLE subscribers (
        id serial PRIMARY KEY,
        email varchar(254) NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending', 'confirmed', 'unsubscribed')),
        created_at timestamptz NOT NULL DEFAULT now(),
        confirmed_at timestamptz,
        unsubscribed_at timestamptz,
        -- A confirmation e-mail still to send (retried like contact messages); null once sent.
        confirmation_due_at timestamptz,
        confirmation_attempts int NOT NULL DEFAULT 0
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX subscribers_email_lower_key ON subscribers (lower(email))`);
    await queryRunner.query(
      `CREATE INDEX subscribers_confirmed_idx ON subscribers (id) WHERE status = 'confirmed'`,
    );
    await queryRunner.query(
      `CREATE INDEX subscribers_confirmation_due_idx ON subscribers (confirmation_due_at)
       WHERE confirmation_due_at IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX subscribers_created_idx ON subscribers (created_at, id)`);

    // Only hashes of the link tokens are kept; each token serves one purpose.
    await queryRunner.query(`
      CREATE TABLE mail_tokens (
        hash char(64) PRIMARY KEY,
        subscriber_id int NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
        purpose varchar(16) NOT NULL CHECK (purpose IN ('confirm', 'unsubscribe')),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX mail_tokens_subscriber_idx ON mail_tokens (subscriber_id, purpose)`,
    );

    // One row per digest week (the DIGEST_CRON occurrence that starts it), holding the
    // posts it carries (content) so a resumed or concurrent run sends the same e-mail.
    await queryRunner.query(`
      CREATE TABLE digest_runs (
        week timestamptz PRIMARY KEY,
        period_start timestamptz NOT NULL,
        period_end timestamptz NOT NULL,
        status varchar(16) NOT NULL CHECK (status IN ('skipped', 'running', 'done')),
        content jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        -- Renewed by whoever is sending; a run whose heartbeat stopped is resumed by the sweep.
        heartbeat_at timestamptz DEFAULT now(),
        finished_at timestamptz
      )`);
    // The once-per-subscriber-per-week claim: a row is inserted before the e-mail is sent,
    // and the primary key lets only one sender (replica, run or restart) have it.
    await queryRunner.query(`
      CREATE TABLE digest_deliveries (
        week timestamptz NOT NULL REFERENCES digest_runs (week) ON DELETE CASCADE,
        subscriber_id int NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
        status varchar(16) NOT NULL DEFAULT 'sending'
          CHECK (status IN ('sending', 'sent', 'failed', 'unknown', 'cancelled')),
        attempts int NOT NULL DEFAULT 1,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        next_attempt_at timestamptz,
        sent_at timestamptz,
        last_error text,
        PRIMARY KEY (week, subscriber_id)
      )`);
    await queryRunner.query(
      `CREATE INDEX digest_deliveries_failed_idx ON digest_deliveries (next_attempt_at) WHERE status = 'failed'`,
    );
    await queryRunner.query(
      `CREATE INDEX digest_deliveries_sending_idx ON digest_deliveries (claimed_at) WHERE status = 'sending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE digest_deliveries`);
    await queryRunner.query(`DROP TABLE digest_runs`);
    await queryRunner.query(`DROP TABLE mail_tokens`);
    await queryRunner.query(`DROP TABLE subscribers`);
    await queryRunner.query(`DROP TABLE form_limits`);
    await queryRunner.query(`DROP TABLE contact_messages`);
  }
}
