/** One DM conversation: the other user and the newest message's ID (GetUserMessageSummaries). */
export class UserMessageSummary {
  /** @internal */
  constructor(
    readonly userId: string,
    readonly lastMessageId: string,
  ) {}
}
