import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'users' })
export class User {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** Unique without regard to case (index on lower(username) in the migration). */
  @Column({ type: 'varchar', length: 32 })
  username!: string;

  @Column({ type: 'varchar', length: 32 })
  role!: string;

  @Column({ name: 'password_hash', type: 'text' })
  passwordHash!: string;

  /** Set when the owner changed the password in the dashboard: ADMIN_PASSWORD then no longer overrides it. */
  @Column({ name: 'password_changed_at', type: 'timestamptz', nullable: true })
  passwordChangedAt!: Date | null;

  /** Raised by a password change, a role change and "sign out everywhere": older tokens stop working. */
  @Column({ name: 'session_version', type: 'int', default: 0 })
  sessionVersion!: number;

  /** Base32 TOTP secret: being set up while totpEnabled is false, in use once it is true. */
  @Column({ name: 'totp_secret', type: 'text', nullable: true })
  totpSecret!: string | null;

  @Column({ name: 'totp_enabled', type: 'boolean', default: false })
  totpEnabled!: boolean;

  /** The last TOTP time step accepted: a code is refused once used (RFC 6238 §5.2). */
  @Column({
    name: 'totp_last_step',
    type: 'bigint',
    nullable: true,
    transformer: { to: (v) => v, from: (v) => (v === null ? null : Number(v)) },
  })
  totpLastStep!: number | null;

  /** SHA-256 hashes of the unused recovery codes. */
  @Column({ name: 'recovery_codes', type: 'text', array: true, default: () => "'{}'" })
  recoveryCodes!: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
