import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { SubscriberFrequency, SubscriptionStatus } from '@blog/contracts';

/** One row per address (unique without regard to case): pending until confirmed, then confirmed or unsubscribed. */
@Entity({ name: 'subscribers' })
export class Subscriber {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 254 })
  email!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: SubscriptionStatus;

  @Column({ type: 'text' })
  frequency!: SubscriberFrequency;

  /** Set after repeated permanent rejections: no more mail until the owner resets it. */
  @Column({ name: 'bounced_at', type: 'timestamptz', nullable: true })
  bouncedAt!: Date | null;

  @Column({ name: 'bounce_count', type: 'int' })
  bounceCount!: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'confirmed_at', type: 'timestamptz', nullable: true })
  confirmedAt!: Date | null;

  @Column({ name: 'unsubscribed_at', type: 'timestamptz', nullable: true })
  unsubscribedAt!: Date | null;

  @Column({ name: 'confirmation_due_at', type: 'timestamptz', nullable: true })
  confirmationDueAt!: Date | null;

  @Column({ name: 'confirmation_attempts', type: 'int' })
  confirmationAttempts!: number;
}
