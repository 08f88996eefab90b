import { ActivityPartyPrivacy, ActivityTypes, type StatusDisplayTypes } from '@social-layer/protocol';

/**
 * Rich presence value classes (social-sdk-api.md 4.1). Games build them, so unlike handles they
 * have a public constructor and getter/setter pairs named as the native SDK's (`details()` /
 * `setDetails()`). Field limits are checked when the activity is sent (updateRichPresence), not
 * by the setters, so a game can build an activity in any order.
 */

export class ActivityButton {
  #label = '';
  #url = '';

  label(): string {
    return this.#label;
  }
  setLabel(label: string): void {
    this.#label = label;
  }
  url(): string {
    return this.#url;
  }
  setUrl(url: string): void {
    this.#url = url;
  }
}

export class ActivityAssets {
  #largeImage: string | undefined;
  #largeText: string | undefined;
  #largeUrl: string | undefined;
  #smallImage: string | undefined;
  #smallText: string | undefined;
  #smallUrl: string | undefined;
  #inviteCoverImage: string | undefined;

  /** Asset key or URL, 1-300 characters. */
  largeImage(): string | undefined {
    return this.#largeImage;
  }
  setLargeImage(value: string | undefined): void {
    this.#largeImage = value;
  }
  /** Hover text, 2-128 characters. */
  largeText(): string | undefined {
    return this.#largeText;
  }
  setLargeText(value: string | undefined): void {
    this.#largeText = value;
  }
  /** Link opened from the large image, 1-256 characters (`assets.large_url`). */
  largeUrl(): string | undefined {
    return this.#largeUrl;
  }
  setLargeUrl(value: string | undefined): void {
    this.#largeUrl = value;
  }
  smallImage(): string | undefined {
    return this.#smallImage;
  }
  setSmallImage(value: string | undefined): void {
    this.#smallImage = value;
  }
  smallText(): string | undefined {
    return this.#smallText;
  }
  setSmallText(value: string | undefined): void {
    this.#smallText = value;
  }
  /** `assets.small_url`. */
  smallUrl(): string | undefined {
    return this.#smallUrl;
  }
  setSmallUrl(value: string | undefined): void {
    this.#smallUrl = value;
  }
  /** Banner of invites sent while this activity is set; the application's cover is the fallback. */
  inviteCoverImage(): string | undefined {
    return this.#inviteCoverImage;
  }
  setInviteCoverImage(value: string | undefined): void {
    this.#inviteCoverImage = value;
  }
}

export class ActivityTimestamps {
  #start = 0;
  #end = 0;

  /** ms since the epoch (small values are taken as seconds); 0 = unset. Shows a count-up. */
  start(): number {
    return this.#start;
  }
  setStart(value: number): void {
    this.#start = value;
  }
  /** ms since the epoch; 0 = unset. Shows a countdown. */
  end(): number {
    return this.#end;
  }
  setEnd(value: number): void {
    this.#end = value;
  }
}

export class ActivityParty {
  #id = '';
  #currentSize = 0;
  #maxSize = 0;
  #privacy: ActivityPartyPrivacy = ActivityPartyPrivacy.Private;

  /** Same for every member of the party; 2-128 characters. */
  id(): string {
    return this.#id;
  }
  setId(value: string): void {
    this.#id = value;
  }
  currentSize(): number {
    return this.#currentSize;
  }
  setCurrentSize(value: number): void {
    this.#currentSize = value;
  }
  /** 0 = no maximum shown. */
  maxSize(): number {
    return this.#maxSize;
  }
  setMaxSize(value: number): void {
    this.#maxSize = value;
  }
  privacy(): ActivityPartyPrivacy {
    return this.#privacy;
  }
  setPrivacy(value: ActivityPartyPrivacy): void {
    this.#privacy = value;
  }
}

export class ActivitySecrets {
  #join = '';

  /** What createOrJoinLobby needs to join the party; only shared with users let in. 2-128. */
  join(): string {
    return this.#join;
  }
  setJoin(value: string): void {
    this.#join = value;
  }
}

export class Activity {
  #name = '';
  #type: ActivityTypes = ActivityTypes.Playing;
  #statusDisplayType: StatusDisplayTypes | undefined;
  #state: string | undefined;
  #stateUrl: string | undefined;
  #details: string | undefined;
  #detailsUrl: string | undefined;
  #applicationId: string | undefined;
  #parentApplicationId: string | undefined;
  #assets: ActivityAssets | undefined;
  #timestamps: ActivityTimestamps | undefined;
  #party: ActivityParty | undefined;
  #secrets: ActivitySecrets | undefined;
  #supportedPlatforms = 0;
  #buttons: ActivityButton[] = [];

  /** Overrides the displayed application name; empty = the application's name. */
  name(): string {
    return this.#name;
  }
  setName(value: string): void {
    this.#name = value;
  }
  /** Playing, Listening, Watching or Competing; the others are refused. */
  type(): ActivityTypes {
    return this.#type;
  }
  setType(value: ActivityTypes): void {
    this.#type = value;
  }
  /** Which field is the status text: Name, State or Details. */
  statusDisplayType(): StatusDisplayTypes | undefined {
    return this.#statusDisplayType;
  }
  setStatusDisplayType(value: StatusDisplayTypes | undefined): void {
    this.#statusDisplayType = value;
  }
  /** Party state ("In a group"), 2-128 characters. */
  state(): string | undefined {
    return this.#state;
  }
  setState(value: string | undefined): void {
    this.#state = value;
  }
  /** `state_url`: link for the state text, 2-256 characters. */
  stateUrl(): string | undefined {
    return this.#stateUrl;
  }
  setStateUrl(value: string | undefined): void {
    this.#stateUrl = value;
  }
  /** What the player is doing, 2-128 characters. */
  details(): string | undefined {
    return this.#details;
  }
  setDetails(value: string | undefined): void {
    this.#details = value;
  }
  /** `details_url`, 2-256 characters. */
  detailsUrl(): string | undefined {
    return this.#detailsUrl;
  }
  setDetailsUrl(value: string | undefined): void {
    this.#detailsUrl = value;
  }
  /** Set by the server (the application that set the activity). */
  applicationId(): string | undefined {
    return this.#applicationId;
  }
  setApplicationId(value: string | undefined): void {
    this.#applicationId = value;
  }
  parentApplicationId(): string | undefined {
    return this.#parentApplicationId;
  }
  setParentApplicationId(value: string | undefined): void {
    this.#parentApplicationId = value;
  }
  assets(): ActivityAssets | undefined {
    return this.#assets;
  }
  setAssets(value: ActivityAssets | undefined): void {
    this.#assets = value;
  }
  timestamps(): ActivityTimestamps | undefined {
    return this.#timestamps;
  }
  setTimestamps(value: ActivityTimestamps | undefined): void {
    this.#timestamps = value;
  }
  party(): ActivityParty | undefined {
    return this.#party;
  }
  setParty(value: ActivityParty | undefined): void {
    this.#party = value;
  }
  secrets(): ActivitySecrets | undefined {
    return this.#secrets;
  }
  setSecrets(value: ActivitySecrets | undefined): void {
    this.#secrets = value;
  }
  /** ActivityGamePlatforms bit flags: where the activity is joinable. */
  supportedPlatforms(): number {
    return this.#supportedPlatforms;
  }
  setSupportedPlatforms(value: number): void {
    this.#supportedPlatforms = value;
  }
  /** Adds a button (label and URL); at most two are accepted when the activity is sent. */
  addButton(button: ActivityButton): void {
    this.#buttons.push(button);
  }
  getButtons(): ActivityButton[] {
    return [...this.#buttons];
  }

  /** Field-by-field comparison. */
  equals(other: Activity): boolean {
    return JSON.stringify(snapshot(this)) === JSON.stringify(snapshot(other));
  }
}

function snapshot(a: Activity): unknown {
  const assets = a.assets();
  const party = a.party();
  return [
    a.name(), a.type(), a.statusDisplayType(), a.state(), a.stateUrl(), a.details(), a.detailsUrl(), a.applicationId(),
    a.parentApplicationId(), a.supportedPlatforms(),
    assets && [assets.largeImage(), assets.largeText(), assets.largeUrl(), assets.smallImage(), assets.smallText(), assets.smallUrl(), assets.inviteCoverImage()],
    a.timestamps() && [a.timestamps()!.start(), a.timestamps()!.end()],
    party && [party.id(), party.currentSize(), party.maxSize(), party.privacy()],
    a.secrets()?.join(),
    a.getButtons().map((b) => [b.label(), b.url()]),
  ];
}
