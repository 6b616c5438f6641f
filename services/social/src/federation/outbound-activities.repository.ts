import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FederationEventKind } from '@blog/contracts';
import { DataSource } from 'typeorm';

/** What has been federated (outbound_activities): each activity id is handed to delivery once. */
export abstract class OutboundActivitiesRepository {
  /**
   * Records the activity and runs `send` in one transaction: true when this call sent it; false
   * when it was recorded before (or by another replica meanwhile). A failed `send` records nothing.
   */
  abstract sendOnce(
    activity: { activityId: string; postId: number; kind: FederationEventKind },
    send: () => Promise<void>,
  ): Promise<boolean>;
}

@Injectable()
export class PostgresOutboundActivitiesRepository extends OutboundActivitiesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  sendOnce(
    activity: { activityId: string; postId: number; kind: FederationEventKind },
    send: () => Promise<void>,
  ): Promise<boolean> {
    // A second replica's insert waits on this row's lock until commit, then inserts nothing.
    return this.db.transaction(async (manager) => {
      const inserted = (await manager.query(
        `INSERT INTO outbound_activities (activity_id, post_id, kind) VALUES ($1, $2, $3)
         ON CONFLICT (activity_id) DO NOTHING RETURNING activity_id`,
        [activity.activityId, activity.postId, activity.kind],
      )) as unknown[];
      if (inserted.length === 0) return false;
      await send();
      return true;
    });
  }
}
