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

  /** The button's text. */
  label(): string {
    return this.#label;
  }
  /** Sets what `label()` returns. */
  setLabel(label: string): void {
    this.#label = label;
  }
  /** What the button opens. */
  url(): string {
    return this.#url;
  }
  /** Sets what `url()` returns. */
  setUrl(url: string): void {
    this.#url = url;
  }
}

/** The images of a rich presence activity (large and small, with hover texts and links). */
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
  /** Sets what `largeImage()` returns. */
  setLargeImage(value: string | undefined): void {
    this.#largeImage = value;
  }
  /** Hover text, 2-128 characters. */
  largeText(): string | undefined {
    return this.#largeText;
  }
  /** Sets what `largeText()` returns. */
  setLargeText(value: string | undefined): void {
    this.#largeText = value;
  }
  /** Link opened from the large image, 1-256 characters (`assets.large_url`). */
  largeUrl(): string | undefined {
    return this.#largeUrl;
  }
  /** Sets what `largeUrl()` returns. */
  setLargeUrl(value: string | undefined): void {
    this.#largeUrl = value;
  }
  /** The small image (an asset key or a URL), shown over the large one. */
  smallImage(): string | undefined {
    return this.#smallImage;
  }
  /** Sets what `smallImage()` returns. */
  setSmallImage(value: string | undefined): void {
    this.#smallImage = value;
  }
  /** The small image's hover text. */
  smallText(): string | undefined {
    return this.#smallText;
  }
  /** Sets what `smallText()` returns. */
  setSmallText(value: string | undefined): void {
    this.#smallText = value;
  }
  /** `assets.small_url`. */
  smallUrl(): string | undefined {
    return this.#smallUrl;
  }
  /** Sets what `smallUrl()` returns. */
  setSmallUrl(value: string | undefined): void {
    this.#smallUrl = value;
  }
  /** Banner of invites sent while this activity is set; the application's cover is the fallback. */
  inviteCoverImage(): string | undefined {
    return this.#inviteCoverImage;
  }
  /** Sets what `inviteCoverImage()` returns. */
  setInviteCoverImage(value: string | undefined): void {
    this.#inviteCoverImage = value;
  }
}

/** When a rich presence activity started and ends (ms since the epoch; 0 for unset). */
export class ActivityTimestamps {
  #start = 0;
  #end = 0;

  /** ms since the epoch (small values are taken as seconds); 0 = unset. Shows a count-up. */
  start(): number {
    return this.#start;
  }
  /** Sets what `start()` returns. */
  setStart(value: number): void {
    this.#start = value;
  }
  /** ms since the epoch; 0 = unset. Shows a countdown. */
  end(): number {
    return this.#end;
  }
  /** Sets what `end()` returns. */
  setEnd(value: number): void {
    this.#end = value;
  }
}

/** The party of a rich presence activity: its ID, size and privacy; friends can join while it has room. */
export class ActivityParty {
  #id = '';
  #currentSize = 0;
  #maxSize = 0;
  #privacy: ActivityPartyPrivacy = ActivityPartyPrivacy.Private;

  /** Same for every member of the party; 2-128 characters. */
  id(): string {
    return this.#id;
  }
  /** Sets what `id()` returns. */
  setId(value: string): void {
    this.#id = value;
  }
  /** How many are in the party. */
  currentSize(): number {
    return this.#currentSize;
  }
  /** Sets what `currentSize()` returns. */
  setCurrentSize(value: number): void {
    this.#currentSize = value;
  }
  /** 0 = no maximum shown. */
  maxSize(): number {
    return this.#maxSize;
  }
  /** Sets what `maxSize()` returns. */
  setMaxSize(value: number): void {
    this.#maxSize = value;
  }
  /** Who may see and join the party (`ActivityPartyPrivacy`). */
  privacy(): ActivityPartyPrivacy {
    return this.#privacy;
  }
  /** Sets what `privacy()` returns. */
  setPrivacy(value: ActivityPartyPrivacy): void {
    this.#privacy = value;
  }
}

/** The secrets of a rich presence activity: the join secret invites carry. */
export class ActivitySecrets {
  #join = '';

  /** What createOrJoinLobby needs to join the party; only shared with users let in. 2-128. */
  join(): string {
    return this.#join;
  }
  /** Sets what `join()` returns. */
  setJoin(value: string): void {
    this.#join = value;
  }
}

/** A rich presence activity (spec `Activity`): what a player is doing, shown to friends; set it with `client.updateRichPresence`. */
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
  /** Sets what `name()` returns. */
  setName(value: string): void {
    this.#name = value;
  }
  /** Playing, Listening, Watching or Competing; the others are refused. */
  type(): ActivityTypes {
    return this.#type;
  }
  /** Sets what `type()` returns. */
  setType(value: ActivityTypes): void {
    this.#type = value;
  }
  /** Which field is the status text: Name, State or Details. */
  statusDisplayType(): StatusDisplayTypes | undefined {
    return this.#statusDisplayType;
  }
  /** Sets what `statusDisplayType()` returns. */
  setStatusDisplayType(value: StatusDisplayTypes | undefined): void {
    this.#statusDisplayType = value;
  }
  /** Party state ("In a group"), 2-128 characters. */
  state(): string | undefined {
    return this.#state;
  }
  /** Sets what `state()` returns. */
  setState(value: string | undefined): void {
    this.#state = value;
  }
  /** `state_url`: link for the state text, 2-256 characters. */
  stateUrl(): string | undefined {
    return this.#stateUrl;
  }
  /** Sets what `stateUrl()` returns. */
  setStateUrl(value: string | undefined): void {
    this.#stateUrl = value;
  }
  /** What the player is doing, 2-128 characters. */
  details(): string | undefined {
    return this.#details;
  }
  /** Sets what `details()` returns. */
  setDetails(value: string | undefined): void {
    this.#details = value;
  }
  /** `details_url`, 2-256 characters. */
  detailsUrl(): string | undefined {
    return this.#detailsUrl;
  }
  /** Sets what `detailsUrl()` returns. */
  setDetailsUrl(value: string | undefined): void {
    this.#detailsUrl = value;
  }
  /** Set by the server (the application that set the activity). */
  applicationId(): string | undefined {
    return this.#applicationId;
  }
  /** Sets what `applicationId()` returns. */
  setApplicationId(value: string | undefined): void {
    this.#applicationId = value;
  }
  /** The parent application, for an application that is a child of another. */
  parentApplicationId(): string | undefined {
    return this.#parentApplicationId;
  }
  /** Sets what `parentApplicationId()` returns. */
  setParentApplicationId(value: string | undefined): void {
    this.#parentApplicationId = value;
  }
  /** The activity's images, if any. */
  assets(): ActivityAssets | undefined {
    return this.#assets;
  }
  /** Sets what `assets()` returns. */
  setAssets(value: ActivityAssets | undefined): void {
    this.#assets = value;
  }
  /** When the activity started and ends, if set. */
  timestamps(): ActivityTimestamps | undefined {
    return this.#timestamps;
  }
  /** Sets what `timestamps()` returns. */
  setTimestamps(value: ActivityTimestamps | undefined): void {
    this.#timestamps = value;
  }
  /** The party friends can join, if any. */
  party(): ActivityParty | undefined {
    return this.#party;
  }
  /** Sets what `party()` returns. */
  setParty(value: ActivityParty | undefined): void {
    this.#party = value;
  }
  /** The join secret, if any. */
  secrets(): ActivitySecrets | undefined {
    return this.#secrets;
  }
  /** Sets what `secrets()` returns. */
  setSecrets(value: ActivitySecrets | undefined): void {
    this.#secrets = value;
  }
  /** ActivityGamePlatforms bit flags: where the activity is joinable. */
  supportedPlatforms(): number {
    return this.#supportedPlatforms;
  }
  /** Sets what `supportedPlatforms()` returns. */
  setSupportedPlatforms(value: number): void {
    this.#supportedPlatforms = value;
  }
  /** Adds a button (label and URL); at most two are accepted when the activity is sent. */
  addButton(button: ActivityButton): void {
    this.#buttons.push(button);
  }
  /** The activity's buttons (label and URL), at most two. */
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
