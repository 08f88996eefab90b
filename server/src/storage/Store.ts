import { AccountRepo } from './AccountRepo.ts';
import { ActivityInviteRepo } from './ActivityInviteRepo.ts';
import { ApplicationProfileRepo } from './ApplicationProfileRepo.ts';
import { ApplicationRepo } from './ApplicationRepo.ts';
import type { OpenDatabase } from './database.ts';
import { LobbyRepo } from './LobbyRepo.ts';
import { DirectMessageRepo } from './DirectMessageRepo.ts';
import { EmojiRepo } from './EmojiRepo.ts';
import { EntitlementRepo } from './EntitlementRepo.ts';
import { GuildInviteRepo } from './GuildInviteRepo.ts';
import { GuildMemberRepo } from './GuildMemberRepo.ts';
import { GuildRepo } from './GuildRepo.ts';
import { MessageRepo } from './MessageRepo.ts';
import { OAuthRepo } from './OAuthRepo.ts';
import { SigningKeyRepo } from './SigningKeyRepo.ts';
import { RelationshipRepo } from './RelationshipRepo.ts';
import { SocialSettingsRepo } from './SocialSettingsRepo.ts';
import { SnowflakeGenerator } from './Snowflake.ts';
import { SkuRepo } from './SkuRepo.ts';
import { SubscriptionRepo } from './SubscriptionRepo.ts';
import { TokenRepo } from './TokenRepo.ts';
import { UserRepo } from './UserRepo.ts';
import { WebhookEventRepo } from './WebhookEventRepo.ts';

/** The storage layer: one repository per table group over one kysely instance (SQLite or PostgreSQL). */
export class Store {
  readonly applications: ApplicationRepo;
  readonly users: UserRepo;
  readonly tokens: TokenRepo;
  readonly lobbies: LobbyRepo;
  readonly messages: MessageRepo;
  readonly accounts: AccountRepo;
  readonly oauth: OAuthRepo;
  readonly signingKeys: SigningKeyRepo;
  readonly webhookEvents: WebhookEventRepo;
  // Social graph, presence, invites and direct messages (issue 6).
  readonly relationships: RelationshipRepo;
  readonly directMessages: DirectMessageRepo;
  readonly invites: ActivityInviteRepo;
  readonly socialSettings: SocialSettingsRepo;
  // Guilds, channels, roles, members and invites (issue 10).
  readonly guilds: GuildRepo;
  readonly guildMembers: GuildMemberRepo;
  readonly guildInvites: GuildInviteRepo;
  readonly emojis: EmojiRepo;
  // Game profiles of external identities (issue 19).
  readonly applicationProfiles: ApplicationProfileRepo;
  // SKUs, entitlements and subscriptions (issue 14).
  readonly skus: SkuRepo;
  readonly entitlements: EntitlementRepo;
  readonly subscriptions: SubscriptionRepo;

  constructor(readonly database: OpenDatabase, readonly ids = new SnowflakeGenerator()) {
    const { db } = database;
    this.applications = new ApplicationRepo(db, ids);
    this.users = new UserRepo(db, ids);
    this.tokens = new TokenRepo(db);
    this.lobbies = new LobbyRepo(db, ids);
    this.messages = new MessageRepo(db, ids);
    this.accounts = new AccountRepo(db, ids);
    this.oauth = new OAuthRepo(db);
    this.signingKeys = new SigningKeyRepo(db);
    this.webhookEvents = new WebhookEventRepo(db, ids);
    this.relationships = new RelationshipRepo(db, ids);
    this.directMessages = new DirectMessageRepo(db, ids);
    this.invites = new ActivityInviteRepo(db, ids);
    this.socialSettings = new SocialSettingsRepo(db);
    this.guilds = new GuildRepo(db, ids);
    this.guildMembers = new GuildMemberRepo(db);
    this.guildInvites = new GuildInviteRepo(db);
    this.emojis = new EmojiRepo(db, ids);
    this.applicationProfiles = new ApplicationProfileRepo(db);
    this.skus = new SkuRepo(db, ids);
    this.entitlements = new EntitlementRepo(db, ids);
    this.subscriptions = new SubscriptionRepo(db, ids);
  }

  close(): Promise<void> {
    return this.database.close();
  }
}
