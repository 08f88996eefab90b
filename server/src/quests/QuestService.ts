import type { FieldErrorTree } from '@social-layer/protocol';
import { ApiError, Errors } from '../errors/ApiError.ts';
import { QuestRepo, type QuestEnrollmentsTable, type QuestsTable } from '../storage/QuestRepo.ts';
import type { Store } from '../storage/Store.ts';
import { userToWire } from '../storage/UserRepo.ts';

/** A quest as the API shows it (ours: the spec names QUEST_USER_ENROLLMENT and nothing more). */
export interface QuestWire {
  id: string;
  application_id: string;
  name: string;
  description: string;
  starts_at: string;
  ends_at: string | null;
  /** For a user's list: when they enrolled, null if not. */
  enrolled_at?: string | null;
  /** For the application's list: how many users enrolled. */
  enrollments?: number;
}

export interface QuestEnrollmentWire {
  quest_id: string;
  user_id: string;
  enrolled_at: string;
}

export interface CreateQuestInput {
  name: string;
  description?: string;
  /** ms; default now. */
  startsAt?: number;
  /** ms; default none (open until ended). */
  endsAt?: number | null;
}

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

export function questToWire(q: QuestsTable): QuestWire {
  return { id: q.id, application_id: q.application_id, name: q.name, description: q.description, starts_at: iso(q.starts_at), ends_at: q.ends_at === null ? null : iso(q.ends_at) };
}

function enrollmentToWire(e: QuestEnrollmentsTable): QuestEnrollmentWire {
  return { quest_id: e.quest_id, user_id: e.user_id, enrolled_at: iso(e.enrolled_at) };
}

export const QuestErrors = {
  // No public code exists for quests; 0 (general) with the resource named, as for other ours.
  unknownQuest: () => new ApiError(404, 0, 'Unknown Quest'),
  notOpen: () => new ApiError(400, 0, 'This quest is not open for enrollment'),
};

/** Whether a quest takes enrollments at `now`. */
export function questOpen(q: QuestsTable, now: number): boolean {
  return Number(q.starts_at) <= now && (q.ends_at === null || Number(q.ends_at) > now);
}

/**
 * Quests (issue 15): the minimum that makes QUEST_USER_ENROLLMENT a real event. An application
 * defines a quest (name, description, the window when enrolling is open) in the developer portal
 * or with its Bot token, and may end it early; a user enrolls once, from the web app (any game's
 * quests) or from the game itself (its own). The enrollment and its webhook event are one
 * transaction; enrolling again changes nothing and records nothing. Progress, rewards and
 * completion are not modelled: the spec says nothing of them.
 */
export class QuestService {
  readonly repo: QuestRepo;

  constructor(private readonly store: Store) {
    this.repo = new QuestRepo(store.database.db, store.ids);
  }

  async create(applicationId: string, input: CreateQuestInput, now = Date.now()): Promise<QuestWire> {
    const name = input.name.trim();
    const description = (input.description ?? '').trim();
    const startsAt = input.startsAt ?? now;
    const endsAt = input.endsAt ?? null;
    const errors: FieldErrorTree = {};
    const refuse = (field: string, code: string, message: string) => (errors[field] = { _errors: [{ code, message }] });
    if (name.length < 1 || name.length > 100) refuse('name', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
    if (description.length > 1000) refuse('description', 'BASE_TYPE_BAD_LENGTH', 'Must be 1000 or fewer in length.');
    if (!Number.isFinite(startsAt)) refuse('starts_at', 'DATE_INVALID', 'Not a valid date.');
    if (endsAt !== null && (!Number.isFinite(endsAt) || endsAt <= startsAt)) refuse('ends_at', 'DATE_INVALID', 'A quest ends after it starts.');
    if (Object.keys(errors).length > 0) throw Errors.invalidForm(errors);
    return questToWire(await this.repo.create({ application_id: applicationId, name, description, starts_at: startsAt, ends_at: endsAt }));
  }

  /** The application's quests with their enrollment counts (the portal, the application's bot). */
  async ofApplication(applicationId: string): Promise<QuestWire[]> {
    const rows = await this.repo.ofApplication(applicationId);
    const counts = await this.repo.counts(rows.map((q) => q.id));
    return rows.map((q) => ({ ...questToWire(q), enrollments: counts.get(q.id) ?? 0 }));
  }

  /** The quests of an application a user may enroll in now, with their own enrollment. */
  async openFor(applicationId: string, userId: string, now = Date.now()): Promise<QuestWire[]> {
    const rows = (await this.repo.ofApplication(applicationId)).filter((q) => questOpen(q, now));
    const mine = await this.repo.enrollmentsOf(userId, rows.map((q) => q.id));
    return rows.map((q) => {
      const e = mine.get(q.id);
      return { ...questToWire(q), enrolled_at: e ? iso(e.enrolled_at) : null };
    });
  }

  /** Ends a quest now (no more enrollments); enrollments made stay. */
  async end(applicationId: string, questId: string, now = Date.now()): Promise<QuestWire> {
    const q = await this.repo.get(questId);
    if (!q || q.application_id !== applicationId) throw QuestErrors.unknownQuest();
    if (q.ends_at === null || Number(q.ends_at) > now) await this.repo.setEndsAt(questId, Math.max(now, Number(q.starts_at) + 1));
    return questToWire((await this.repo.get(questId))!);
  }

  /**
   * Enrolls the user. `mayAccess(applicationId)` says whether the caller's token may act on that
   * application's quests (its own game, or the first-party web app); otherwise the quest reads
   * as unknown. The first enrollment records QUEST_USER_ENROLLMENT in its transaction.
   */
  async enroll(userId: string, questId: string, mayAccess: (applicationId: string) => Promise<boolean>, now = Date.now()): Promise<QuestEnrollmentWire> {
    const quest = await this.repo.get(questId);
    if (!quest || !(await mayAccess(quest.application_id))) throw QuestErrors.unknownQuest();
    const user = await this.store.users.get(userId);
    if (!user) throw Errors.unknownUser();
    return this.store.database.db.transaction().execute(async (tx) => {
      const current = await this.repo.enrollment(questId, userId, tx);
      if (current) return enrollmentToWire(current);
      // Checked in the transaction: an enrollment is never recorded for a quest that had ended.
      const fresh = await this.repo.get(questId, tx);
      if (!fresh || !questOpen(fresh, now)) throw QuestErrors.notOpen();
      if (!(await this.repo.enroll(tx, questId, userId, now))) return enrollmentToWire((await this.repo.enrollment(questId, userId, tx))!);
      const enrollment = { quest_id: questId, user_id: userId, enrolled_at: iso(now) };
      await this.store.webhookEvents.record(tx, quest.application_id, 'QUEST_USER_ENROLLMENT', { ...enrollment, user: userToWire(user), quest: questToWire(fresh) });
      return enrollment;
    });
  }
}

const byStore = new WeakMap<Store, QuestService>();

/** One service per store, shared by the routes and the portal. */
export function questServiceFor(store: Store): QuestService {
  let s = byStore.get(store);
  if (!s) byStore.set(store, (s = new QuestService(store)));
  return s;
}
