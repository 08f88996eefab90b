/**
 * What approval changes. An application starts in pre-approval (when a developer makes it in the
 * portal), where its lobby, message and channel-linking writes draw on small budgets shared by
 * the whole application, the development limits of the public platform (protocols.md 2.6): 100
 * per 2 hours for most writes and 20 per 2 hours for channel linking. It asks for production
 * access in the portal; an operator approves it (`social-layer apps approve --app ID`), and from
 * then on only the per-caller route budgets apply, the ones every route has.
 */
export type PreApprovalClass = 'write' | 'channel-linking';

export const PRE_APPROVAL_BUDGETS: Record<PreApprovalClass, { limit: number; windowMs: number }> = {
  write: { limit: 100, windowMs: 2 * 3600_000 },
  'channel-linking': { limit: 20, windowMs: 2 * 3600_000 },
};

/**
 * The writes that count, by method and route pattern (parameter names do not matter). A new
 * route can instead declare `config: { applicationBudget: 'write' }`.
 */
export const PRE_APPROVAL_ROUTES: Record<string, PreApprovalClass> = {
  'PUT /api/v10/lobbies': 'write',
  'POST /api/v10/lobbies': 'write',
  'PATCH /api/v10/lobbies/:': 'write',
  'PUT /api/v10/lobbies/:/members/:': 'write',
  'DELETE /api/v10/lobbies/:/members/:': 'write',
  'DELETE /api/v10/lobbies/:/members/@me': 'write',
  'POST /api/v10/lobbies/:/members/bulk': 'write',
  'POST /api/v10/lobbies/:/members/@me/invites': 'write',
  'POST /api/v10/lobbies/:/members/:/invites': 'write',
  'POST /api/v10/lobbies/:/messages': 'write',
  'POST /api/v10/users/:/messages': 'write',
  'PATCH /api/v10/users/:/messages/:': 'write',
  'PATCH /api/v10/lobbies/:/channel-linking': 'channel-linking',
};

/** `/api/v10/lobbies/:lobbyId/members/:userId` -> `/api/v10/lobbies/:/members/:`. */
export function routeKey(method: string, pattern: string): string {
  return `${method.toUpperCase()} ${pattern.replace(/:[^/]+/g, ':')}`;
}
