import {
  ActivityActionTypes,
  SocialDispatchEvent,
  SocialLimits,
  type AcceptActivityInviteResult,
  type ActivityInviteWire,
} from '@social-layer/protocol';
import { ActivityInvite } from '../ActivityInvite.ts';
import { ClientResultError } from '../ClientResultError.ts';
import { checkSnowflake } from '../validation.ts';
import type { SocialContext } from './SocialContext.ts';

/**
 * Game invites (social-sdk-api.md 4.3): send, ask to join, answer a request, accept. The join
 * secret is never in an invite; acceptActivityInvite asks the server for the sender's current one,
 * which the game hands to createOrJoinLobby.
 */
export class Invites {
  /** Invites already announced, so a READY after a reconnect does not announce them again. */
  private readonly announced = new Set<string>();
  /** The web game's URL (registerLaunchCommand): invites without a server deep link get one from it. */
  private launchUrl: string | undefined;
  /** registerLaunchSteamApplication's app, shown on invites (ActivityInvite.steamLaunchUrl). */
  private steamAppId: number | undefined;

  constructor(private readonly ctx: SocialContext) {}

  async sendActivityInvite(userId: string, content: string): Promise<void> {
    checkSnowflake(userId, 'userId');
    if (typeof content !== 'string' || content.length > SocialLimits.inviteContentMaxLength) {
      throw ClientResultError.validation(`invite content must be a string of at most ${SocialLimits.inviteContentMaxLength} characters`);
    }
    this.ctx.requireSession('sendActivityInvite');
    await this.ctx.http.request<ActivityInviteWire>({ method: 'POST', path: `/users/${userId}/activity-invites`, body: { content }, auth: true });
  }

  async sendActivityJoinRequest(userId: string): Promise<void> {
    checkSnowflake(userId, 'userId');
    this.ctx.requireSession('sendActivityJoinRequest');
    await this.ctx.http.request<ActivityInviteWire>({ method: 'POST', path: `/users/${userId}/activity-join-requests`, body: {}, auth: true });
  }

  /** Lets a requester in: sends them an invite they can accept. */
  async sendActivityJoinRequestReply(invite: ActivityInvite): Promise<void> {
    const id = checkInvite(invite);
    if (invite.type() !== ActivityActionTypes.JoinRequest && invite.type() !== ActivityActionTypes.Invalid) {
      throw ClientResultError.validation('only a join request can be replied to');
    }
    this.ctx.requireSession('sendActivityJoinRequestReply');
    await this.ctx.http.request<ActivityInviteWire>({ method: 'POST', path: `/users/@me/activity-invites/${id}/reply`, body: {}, auth: true });
  }

  /** Resolves with the join secret for createOrJoinLobby while the invite is valid. */
  async acceptActivityInvite(invite: ActivityInvite): Promise<string> {
    const id = checkInvite(invite);
    if (invite.type() === ActivityActionTypes.JoinRequest) throw ClientResultError.validation('a join request is answered with sendActivityJoinRequestReply');
    this.ctx.requireSession('acceptActivityInvite');
    const result = await this.ctx.http.request<AcceptActivityInviteResult>({ method: 'POST', path: `/users/@me/activity-invites/${id}/accept`, body: {}, auth: true });
    return result.secret;
  }

  /**
   * The web meaning of RegisterLaunchCommand: the URL that starts this game. Invites then carry a
   * deep link `<url>?invite=<id>` when the application has none configured on the server.
   */
  registerLaunchCommand(applicationId: string, command: string): boolean {
    try {
      checkSnowflake(applicationId, 'applicationId');
      const url = new URL(command);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    } catch {
      return false;
    }
    this.launchUrl = command;
    return true;
  }

  /**
   * RegisterLaunchSteamApplication: stored and shown on received invites (steamAppId(),
   * steamLaunchUrl()); a browser cannot start a Steam game itself. Bad arguments: ValidationError.
   */
  registerLaunchSteamApplication(applicationId: string, steamAppId: number): boolean {
    checkSnowflake(applicationId, 'applicationId');
    if (!Number.isInteger(steamAppId) || steamAppId <= 0 || steamAppId > 0xffff_ffff) {
      throw ClientResultError.validation('steamAppId must be a Steam app ID (an integer from 1 to 4294967295)');
    }
    this.steamAppId = steamAppId;
    return true;
  }

  onDispatch(event: string, data: unknown): boolean {
    if (event === SocialDispatchEvent.ActivityInviteCreate) {
      this.created(data as ActivityInviteWire);
      return true;
    }
    if (event === SocialDispatchEvent.ActivityInviteUpdate) {
      this.ctx.emit('activityInviteUpdated', this.invite(data as ActivityInviteWire));
      return true;
    }
    return false;
  }

  /** READY: invites received while away are announced once. */
  onReady(invites: ActivityInviteWire[]): void {
    for (const w of [...invites].reverse()) this.created(w);
  }

  private created(w: ActivityInviteWire): void {
    if (this.announced.has(w.id)) return;
    this.announced.add(w.id);
    if (w.sender) this.ctx.rememberUser(w.sender, true);
    this.ctx.emit('activityInviteCreated', this.invite(w));
  }

  private invite(w: ActivityInviteWire): ActivityInvite {
    return ActivityInvite.fromWire(w, this.launchUrl, this.steamAppId);
  }
}

function checkInvite(invite: unknown): string {
  if (!(invite instanceof ActivityInvite)) throw ClientResultError.validation('invite must be an ActivityInvite');
  return checkSnowflake(invite.messageId(), 'invite.messageId');
}
