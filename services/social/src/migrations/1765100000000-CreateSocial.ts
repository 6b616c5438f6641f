import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateSocial1765100000000 implements MigrationInterface {
  name = 'CreateSocial1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The blog actor's key pairs, made once (the primary key lets one of two first callers win).
    await queryRunner.query(`
      CREATE TABLE actor_keys (
        kind varchar(16) PRIMARY KEY CHECK (kind IN ('rsa', 'ed25519')),
        public_jwk jsonb NOT NULL,
        private_jwk jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);

    // Remote accounts as last seen; host is kept lowercased for server blocks.
    await queryRunner.query(`
      CREATE TABLE remote_actors (
        id serial PRIMARY KEY,
        uri varchar(2048) NOT NULL UNIQUE,
        host varchar(253) NOT NULL,
        handle varchar(300),
        name varchar(300),
        url varchar(2048),
        inbox varchar(2048) NOT NULL,
        shared_inbox varchar(2048),
        icon_url varchar(2048),
        avatar_key varchar(500),
        fetched_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX remote_actors_host_idx ON remote_actors (host)`);

    // One follow per remote actor; "approve followers" keeps new ones pending.
    await queryRunner.query(`
      CREATE TABLE followers (
        id serial PRIMARY KEY,
        remote_actor_id int NOT NULL UNIQUE REFERENCES remote_actors (id) ON DELETE CASCADE,
        follow_activity_id varchar(2048) NOT NULL,
        status varchar(16) NOT NULL CHECK (status IN ('pending', 'accepted')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX followers_status_idx ON followers (status, id)`);

    await queryRunner.query(`
      CREATE TABLE following (
        id serial PRIMARY KEY,
        target_uri varchar(2048) NOT NULL UNIQUE,
        follow_activity_id varchar(2048) NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);

    // Exactly one of actor_uri and domain: an account block or a server block.
    await queryRunner.query(`
      CREATE TABLE blocks (
        id serial PRIMARY KEY,
        actor_uri varchar(2048) UNIQUE,
        domain varchar(253) UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((actor_uri IS NULL) <> (domain IS NULL))
      )`);

    // Keyed by the activity's id: a Like or Announce delivered twice counts once.
    await queryRunner.query(`
      CREATE TABLE reactions (
        activity_id varchar(2048) PRIMARY KEY,
        post_id int NOT NULL,
        remote_actor_uri varchar(2048) NOT NULL,
        kind varchar(16) NOT NULL CHECK (kind IN ('like', 'announce')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX reactions_post_idx ON reactions (post_id, kind)`);

    // What has been federated: the delivery job inserts first and sends only if its insert happened.
    await queryRunner.query(`
      CREATE TABLE outbound_activities (
        activity_id varchar(2048) PRIMARY KEY,
        post_id int NOT NULL,
        kind varchar(16) NOT NULL CHECK (kind IN ('create', 'update', 'delete')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX outbound_activities_post_idx ON outbound_activities (post_id, created_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'outbound_activities',
      'reactions',
      'blocks',
      'following',
      'followers',
      'remote_actors',
      'actor_keys',
    ])
      await queryRunner.query(`DROP TABLE ${table}`);
  }
}
