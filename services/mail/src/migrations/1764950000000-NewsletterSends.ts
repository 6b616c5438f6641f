import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every post by e-mail: one row per post whose e-mail went out (or is going out), and one
 * claim per (post, subscriber), inserted for every each-post subscriber before the first
 * e-mail is sent. The primary key is what keeps a post to one e-mail per subscriber.
 */
export class NewsletterSends1764950000000 implements MigrationInterface {
  name = 'NewsletterSends1764950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE newsletter_sends (
        post_id int PRIMARY KEY,
        event_id uuid NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'sending' CHECK (status IN ('sending', 'sent', 'stopped')),
        total int NOT NULL DEFAULT 0,
        sent int NOT NULL DEFAULT 0,
        failed int NOT NULL DEFAULT 0,
        bounced int NOT NULL DEFAULT 0,
        started_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        heartbeat_at timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX newsletter_sends_sending_idx ON newsletter_sends (post_id) WHERE status = 'sending'`,
    );
    await queryRunner.query(`
      CREATE TABLE newsletter_deliveries (
        post_id int NOT NULL REFERENCES newsletter_sends (post_id) ON DELETE CASCADE,
        subscriber_id int NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
        status varchar(16) NOT NULL DEFAULT 'claimed'
          CHECK (status IN ('claimed', 'sending', 'sent', 'failed', 'bounced', 'unknown', 'cancelled', 'stopped')),
        attempts int NOT NULL DEFAULT 0,
        last_error text,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz,
        PRIMARY KEY (post_id, subscriber_id)
      )`);
    await queryRunner.query(
      `CREATE INDEX newsletter_deliveries_waiting_idx ON newsletter_deliveries (post_id, subscriber_id)
         WHERE status = 'claimed' OR status = 'sending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE newsletter_deliveries`);
    await queryRunner.query(`DROP TABLE newsletter_sends`);
  }
}
