/** One DM conversation: the other user and the newest message's ID (GetUserMessageSummaries). */
export class UserMessageSummary {
  /** @internal */
  constructor(
    /** The other user of the conversation. */
    readonly userId: string,
    /** The newest message's ID. */
    readonly lastMessageId: string,
  ) {}
}
