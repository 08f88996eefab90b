import { ApiError, Errors } from '../errors/ApiError.ts';

/** Public error codes of commands and interactions. */
export const InteractionErrors = {
  unknownCommand: () => new ApiError(404, 10063, 'Unknown application command'),
  unknownInteraction: () => new ApiError(404, 10062, 'Unknown interaction'),
  unknownWebhook: () => new ApiError(404, 10015, 'Unknown Webhook'),
  unknownMessage: () => new ApiError(404, 10008, 'Unknown Message'),
  alreadyAcknowledged: () => new ApiError(400, 40060, 'Interaction has already been acknowledged.'),
  /** 30032: too many commands of one kind in one scope. */
  tooManyCommands: (limit: number) => new ApiError(400, 30032, `Maximum number of application commands reached (${limit})`),
  /** No public code names the follow-up cap of user-installed apps: 400 with the general code 0 (our choice, README). */
  tooManyFollowups: () => new ApiError(400, 0, 'Maximum number of follow-up messages reached (5) for a user-installed application'),
  missingAccess: () => Errors.missingAccess(),
  invalidForm: (path: (string | number)[], code: string, message: string) => {
    const tree: Record<string, unknown> = {};
    let node = tree;
    for (const k of path) node = (node[String(k)] = {}) as Record<string, unknown>;
    node._errors = [{ code, message }];
    return Errors.invalidForm(tree as never);
  },
};
