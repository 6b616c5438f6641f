import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The single settings row (id 1). */
@Entity({ name: 'settings' })
export class SettingsRow {
  @PrimaryColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'image_max_size', type: 'int' })
  imageMaxSize!: number;

  @Column({ name: 'image_quality', type: 'int' })
  imageQuality!: number;

  @Column({ name: 'image_auto_optimize', type: 'boolean' })
  imageAutoOptimize!: boolean;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
