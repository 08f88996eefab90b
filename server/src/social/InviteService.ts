import { createHash } from 'node:crypto';
import {
  ActivityActionTypes,
  ActivityPartyPrivacy,
  SocialDispatchEvent,
  SocialLimits,
  type AcceptActivityInviteResult,
  type ActivityInviteWire,
  type ActivityWire,
} from '@social-layer/protocol';
import type { EventBus } from '../events/EventBus.ts';
import { Errors } from '../errors/ApiError.ts';
import type { Logger } from '../log/Logger.ts';
import type { ActivityInvitesTable, UsersTable } from '../storage/schema.ts';
import type { Store } from '../storage/Store.ts';
import { userToWire } from '../storage/UserRepo.ts';
import { joinable } from './activityCheck.ts';
import { publish } from './dispatch.ts';
import { canMessage } from './messagingPolicy.ts';
import type { PresenceService } from './PresenceService.ts';
import { SocialErrors } from './socialErrors.ts';

/**
 * Game invites (social-sdk-api.md 4.3). An invite travels like a direct message (the same
 * "who may message whom" rule, so a block stops both) but is not one: it never shows in DM
 * history and never fires messageCreated. The join secret is not in the invite; accepting asks
 * the server, which hands out the sender's *current* secret only while the invite is valid: at
 * most 6 hours old and the sender still in that party, with room.
 */
export class InviteService {
  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly presence: PresenceService,
    private readonly log: Logger,
  ) {
    presence.onActivityChange((userId, applicationId) => {
      this.refreshValidity(userId, applicationId).catch((err) => this.log.error({ err }, 'invite validity update failed'));
    });
  }

  /** SendActivityInvite: invites `recipientId` into the sender's current party. */
  async sendInvite(applicationId: string, senderId: string, recipientId: string, content: string): Promise<ActivityInviteWire> {
    const activity = this.presence.ownActivity(applicationId, senderId);
    await this.checkDeliverable(applicationId, senderId, recipientId);
    if (!joinable(activity)) throw activity?.party?.id && activity.secrets?.join ? SocialErrors.partyFull() : SocialErrors.notJoinable();
    return this.create(applicationId, senderId, recipientId, ActivityActionTypes.Join, activity, content);
  }

  /**
   * SendActivityJoinRequest: asks `targetId` to be let into their party. The target must have a
   * joinable activity in this game; a non-friend may ask only when that party is Public.
   */
  async sendJoinRequest(applicationId: string, requesterId: string, targetId: string): Promise<ActivityInviteWire> {
    await this.checkDeliverable(applicationId, requesterId, targetId);
    const activity = this.presence.ownActivity(applicationId, targetId);
    if (!joinable(activity)) throw activity?.party?.id && activity.secrets?.join ? SocialErrors.partyFull() : SocialErrors.notJoinable();
    const friends = await this.store.relationships.areFriends(requesterId, targetId, applicationId);
    if (!friends && activity.party.privacy !== ActivityPartyPrivacy.Public) throw SocialErrors.notJoinable();
    return this.create(applicationId, requesterId, targetId, ActivityActionTypes.JoinRequest, activity, '');
  }

  /** SendActivityJoinRequestReply: the host answers a join request with an invite to the requester. */
  async replyToJoinRequest(applicationId: string, hostId: string, requestId: string): Promise<ActivityInviteWire> {
    const request = await this.store.invites.get(requestId);
    const family = await this.store.socialSettings.family(applicationId);
    if (!request || request.recipient_id !== hostId || request.type !== ActivityActionTypes.JoinRequest || !family.includes(request.application_id)) {
      throw SocialErrors.unknownInvite();
    }
    return this.sendInvite(applicationId, hostId, request.sender_id, '');
  }

  /** AcceptActivityInvite: the join secret to hand to createOrJoinLobby, while the invite is valid. */
  async accept(applicationId: string, userId: string, inviteId: string): Promise<AcceptActivityInviteResult> {
    const invite = await this.mine(applicationId, userId, inviteId);
    if (invite.type !== ActivityActionTypes.Join) throw SocialErrors.unknownInvite();
    if (await this.store.relationships.blockedEitherWay(userId, invite.sender_id)) throw SocialErrors.inviteNoLongerValid();
    const activity = this.presence.ownActivity(invite.application_id, invite.sender_id);
    if (!this.isValid(invite, activity)) throw SocialErrors.inviteNoLongerValid();
    if (!joinable(activity)) throw SocialErrors.partyFull();
    return { secret: activity.secrets.join, party_id: activity.party.id, application_id: invite.application_id };
  }

  /** One invite sent to the user (deep links name an invite by ID). */
  async get(applicationId: string, userId: string, inviteId: string): Promise<ActivityInviteWire> {
    return this.toWire(await this.mine(applicationId, userId, inviteId));
  }

  /** Invites received in the last 6 hours that are still valid, for READY. */
  async pending(applicationId: string, userId: string): Promise<ActivityInviteWire[]> {
    const family = await this.store.socialSettings.family(applicationId);
    const rows = await this.store.invites.received(userId, family, Date.now() - SocialLimits.inviteValidityMs);
    const out: ActivityInviteWire[] = [];
    for (const row of rows) {
      const wire = await this.toWire(row);
      if (wire.is_valid) out.push(wire);
    }
    return out;
  }

  // ---- internals ----------------------------------------------------------------------------

  private async checkDeliverable(applicationId: string, senderId: string, recipientId: string): Promise<void> {
    if (!(await this.store.users.get(recipientId))) throw Errors.unknownUser();
    const family = await this.store.socialSettings.family(applicationId);
    if (!(await canMessage(this.store, applicationId, family, senderId, recipientId))) throw SocialErrors.cannotMessageUser();
  }

  private async create(
    applicationId: string,
    senderId: string,
    recipientId: string,
    type: number,
    activity: ActivityWire & { party: { id: string } },
    content: string,
  ): Promise<ActivityInviteWire> {
    const settings = await this.store.socialSettings.applicationSettings(applicationId);
    const row = await this.store.directMessages.transaction(async (tx) => {
      const channel = await this.store.directMessages.openChannel(tx, senderId, recipientId);
      return this.store.invites.insert(tx, {
        application_id: applicationId,
        sender_id: senderId,
        recipient_id: recipientId,
        channel_id: channel.id,
        type,
        party_id: activity.party.id,
        session_id: presenceSessionId(senderId, applicationId, activity),
        content,
        // The spec's fallback: the activity's invite cover, else the application's uploaded cover.
        cover_image: activity.assets?.invite_cover_image ?? settings?.cover_image ?? null,
      });
    });
    const wire = await this.toWire(row);
    const family = await this.store.socialSettings.family(applicationId);
    for (const appId of await this.store.socialSettings.applicationsOf(recipientId)) {
      if (family.includes(appId)) publish(this.bus, appId, [recipientId], SocialDispatchEvent.ActivityInviteCreate, wire);
    }
    return wire;
  }

  private async mine(applicationId: string, userId: string, inviteId: string): Promise<ActivityInvitesTable> {
    const invite = await this.store.invites.get(inviteId);
    const family = await this.store.socialSettings.family(applicationId);
    if (!invite || invite.recipient_id !== userId || !family.includes(invite.application_id)) throw SocialErrors.unknownInvite();
    return invite;
  }

  /** Valid: at most 6 hours old, and the sender still has an activity in that party. */
  private isValid(invite: ActivityInvitesTable, senderActivity: ActivityWire | undefined): boolean {
    if (Date.now() - Number(invite.created_at) > SocialLimits.inviteValidityMs) return false;
    if (invite.type === ActivityActionTypes.JoinRequest) return true;
    return senderActivity?.party?.id === invite.party_id && senderActivity.secrets?.join !== undefined;
  }

  /** The sender's activity changed or ended: invites that turned valid or invalid say so. */
  private async refreshValidity(senderId: string, applicationId: string): Promise<void> {
    const rows = await this.store.invites.sentSince(senderId, applicationId, ActivityActionTypes.Join, Date.now() - SocialLimits.inviteValidityMs);
    const activity = this.presence.ownActivity(applicationId, senderId);
    const family = await this.store.socialSettings.family(applicationId);
    for (const row of rows) {
      const valid = this.isValid(row, activity);
      if (valid === (row.valid === 1)) continue;
      await this.store.invites.setValid([row.id], valid);
      const wire = await this.toWire({ ...row, valid: valid ? 1 : 0 });
      for (const appId of await this.store.socialSettings.applicationsOf(row.recipient_id)) {
        if (family.includes(appId)) publish(this.bus, appId, [row.recipient_id], SocialDispatchEvent.ActivityInviteUpdate, wire);
      }
    }
  }

  private async toWire(row: ActivityInvitesTable): Promise<ActivityInviteWire> {
    const sender = (await this.store.users.get(row.sender_id)) as UsersTable;
    const settings = await this.store.socialSettings.applicationSettings(row.application_id);
    const activity = this.presence.ownActivity(row.application_id, row.sender_id);
    return {
      id: row.id,
      type: row.type,
      sender_id: row.sender_id,
      recipient_id: row.recipient_id,
      channel_id: row.channel_id,
      application_id: row.application_id,
      parent_application_id: await this.store.socialSettings.parentOf(row.application_id),
      party_id: row.party_id,
      session_id: row.session_id,
      content: row.content,
      created_at: new Date(Number(row.created_at)).toISOString(),
      is_valid: this.isValid(row, activity),
      cover_image: row.cover_image ?? settings?.cover_image ?? null,
      url: settings?.launch_url ? deepLink(settings.launch_url, row.id) : null,
      sender: userToWire(sender),
    };
  }
}

/** `<launch_url>?invite=<id>`: opening it starts the web game, which accepts the invite and joins. */
export function deepLink(launchUrl: string, inviteId: string): string {
  const url = new URL(launchUrl);
  url.searchParams.set('invite', inviteId);
  return url.toString();
}

/** A stable ID for the presence that sent the invite (the sender's activity, not a socket). */
function presenceSessionId(userId: string, applicationId: string, activity: ActivityWire): string {
  return createHash('sha256').update(`${userId}:${applicationId}:${activity.created_at ?? 0}`).digest('hex').slice(0, 32);
}
