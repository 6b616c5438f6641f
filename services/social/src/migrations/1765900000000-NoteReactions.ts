import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Likes, boosts and accepted quotes of the blog's notes, counted as a post's are: a reaction is of
 * a post (`post_id`) or of a note (`note_id`), never both.
 */
export class NoteReactions1765900000000 implements MigrationInterface {
  name = 'NoteReactions1765900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE reactions ADD COLUMN note_id integer, ALTER COLUMN post_id DROP NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE reactions ADD CONSTRAINT reactions_subject_check CHECK ((post_id IS NULL) <> (note_id IS NULL))`,
    );
    await queryRunner.query(
      `CREATE INDEX reactions_note_idx ON reactions (note_id) WHERE note_id IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM reactions WHERE note_id IS NOT NULL`);
    await queryRunner.query(`ALTER TABLE reactions DROP CONSTRAINT reactions_subject_check`);
    await queryRunner.query(`ALTER TABLE reactions DROP COLUMN note_id, ALTER COLUMN post_id SET NOT NULL`);
  }
}
