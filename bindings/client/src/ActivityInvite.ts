import { ActivityActionTypes, type ActivityInviteWire } from '@social-layer/protocol';

/**
 * An invite to join a party, or a request to join one (social-sdk-api.md 4.3). A value class, as
 * in the native SDK: the client makes them from invite dispatches, and a game may build one
 * itself, for instance from a deep link's `?invite=<id>` with `setMessageId`, which is all
 * acceptActivityInvite needs.
 */
export class ActivityInvite {
  #senderId = '0';
  #channelId = '0';
  #messageId = '0';
  #type: ActivityActionTypes = ActivityActionTypes.Invalid;
  #applicationId = '0';
  #parentApplicationId = '0';
  #partyId = '';
  #sessionId = '';
  #isValid = false;
  #createdAt = 0;
  #content = '';
  #coverImage: string | undefined;
  #url: string | undefined;
  #steamAppId: number | undefined;

  /** @internal */
  static fromWire(w: ActivityInviteWire, fallbackLaunchUrl?: string, steamAppId?: number): ActivityInvite {
    const i = new ActivityInvite();
    i.#senderId = w.sender_id;
    i.#channelId = w.channel_id;
    i.#messageId = w.id;
    i.#type = w.type as ActivityActionTypes;
    i.#applicationId = w.application_id;
    i.#parentApplicationId = w.parent_application_id ?? '0';
    i.#partyId = w.party_id;
    i.#sessionId = w.session_id;
    i.#isValid = w.is_valid;
    i.#createdAt = Date.parse(w.created_at) || 0;
    i.#content = w.content;
    i.#coverImage = w.cover_image ?? undefined;
    i.#url = w.url ?? (fallbackLaunchUrl ? inviteUrl(fallbackLaunchUrl, w.id) : undefined);
    i.#steamAppId = steamAppId;
    return i;
  }

  /**
   * Ours: the Steam app registered with registerLaunchSteamApplication, so a game UI can offer
   * "Open in Steam" (`steam://run/<id>`) beside url(); a browser cannot launch it by itself.
   */
  steamAppId(): number | undefined {
    return this.#steamAppId;
  }
  /** `steam://run/<steamAppId>`, when one is registered. */
  steamLaunchUrl(): string | undefined {
    return this.#steamAppId === undefined ? undefined : `steam://run/${this.#steamAppId}`;
  }

  /** The user who sent the invite (or the join request). */
  senderId(): string {
    return this.#senderId;
  }
  /** Sets what `senderId()` returns. */
  setSenderId(value: string): void {
    this.#senderId = value;
  }
  /** The DM channel between sender and recipient. */
  channelId(): string {
    return this.#channelId;
  }
  /** Sets what `channelId()` returns. */
  setChannelId(value: string): void {
    this.#channelId = value;
  }
  /** The invite's own ID. */
  messageId(): string {
    return this.#messageId;
  }
  /** Sets what `messageId()` returns. */
  setMessageId(value: string): void {
    this.#messageId = value;
  }
  /** Join (an invite) or JoinRequest (someone asks to join your party). */
  type(): ActivityActionTypes {
    return this.#type;
  }
  /** Sets what `type()` returns. */
  setType(value: ActivityActionTypes): void {
    this.#type = value;
  }
  /** The application the invite was sent from: a sibling application's ID for cross-game invites. */
  applicationId(): string {
    return this.#applicationId;
  }
  /** Sets what `applicationId()` returns. */
  setApplicationId(value: string): void {
    this.#applicationId = value;
  }
  /** The parent application of the invite's application, if any. */
  parentApplicationId(): string {
    return this.#parentApplicationId;
  }
  /** Sets what `parentApplicationId()` returns. */
  setParentApplicationId(value: string): void {
    this.#parentApplicationId = value;
  }
  /** The party the invite is for. */
  partyId(): string {
    return this.#partyId;
  }
  /** Sets what `partyId()` returns. */
  setPartyId(value: string): void {
    this.#partyId = value;
  }
  /** The sender's presence session that made the invite. */
  sessionId(): string {
    return this.#sessionId;
  }
  /** Sets what `sessionId()` returns. */
  setSessionId(value: string): void {
    this.#sessionId = value;
  }
  /** False once it is over 6 hours old or the sender left that party. */
  isValid(): boolean {
    return this.#isValid && (this.#createdAt === 0 || Date.now() - this.#createdAt <= 6 * 60 * 60 * 1000);
  }
  /** Sets what `isValid()` returns. */
  setIsValid(value: boolean): void {
    this.#isValid = value;
  }
  /** ms since the epoch (ours). */
  createdAt(): number {
    return this.#createdAt;
  }
  /** The text sent with the invite; may be empty (ours: the native invite is a message). */
  content(): string {
    return this.#content;
  }
  /** Banner image: the sender's activity inviteCoverImage, else the application's cover (ours). */
  coverImage(): string | undefined {
    return this.#coverImage;
  }
  /** Deep link that opens the web game and joins the party: `<launch URL>?invite=<id>` (ours). */
  url(): string | undefined {
    return this.#url;
  }
}

export function inviteUrl(launchUrl: string, inviteId: string): string {
  const url = new URL(launchUrl);
  url.searchParams.set('invite', inviteId);
  return url.toString();
}
