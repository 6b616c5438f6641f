import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Failed sign-ins per (IP, username) within a window; kept in the database so every replica shares it. */
@Entity({ name: 'login_attempts' })
export class LoginAttempt {
  @PrimaryColumn({ type: 'text' })
  key!: string;

  @Column({ type: 'int' })
  failures!: number;

  @Column({ name: 'window_started_at', type: 'timestamptz' })
  windowStartedAt!: Date;
}
