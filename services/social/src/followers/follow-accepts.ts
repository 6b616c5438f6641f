/** Sends the Accept of a Follow the owner approved (the federation implements it). */
export abstract class FollowAccepts {
  abstract send(
    follower: { actorUri: string; inbox: string; sharedInbox: string | null },
    followActivityId: string,
  ): Promise<void>;
}
