import { ApiError } from '../errors/ApiError.ts';

/**
 * Commerce refusals with the public JSON error codes (discord-api-types' RESTJSONErrorCodes).
 * Consuming an entitlement twice and an unknown subscription have no public code: we answer
 * 400 / 404 with code 0 (General) and a message that says which.
 */
export const CommerceErrors = {
  unknownSku: () => new ApiError(404, 10027, 'Unknown SKU'),
  unknownEntitlement: () => new ApiError(404, 10029, 'Unknown Entitlement'),
  unknownSubscription: () => new ApiError(404, 0, 'Unknown Subscription'),
  unknownUser: () => new ApiError(404, 10013, 'Unknown User'),
  unknownGuild: () => new ApiError(404, 10004, 'Unknown Guild'),
  notConsumable: () => new ApiError(400, 40018, 'Only consumable SKUs can be consumed'),
  alreadyConsumed: () => new ApiError(400, 0, 'This entitlement has already been consumed'),
  onlyTestDeletable: () => new ApiError(400, 40019, 'You can only delete sandbox entitlements'),
  alreadyGranted: () => new ApiError(400, 40074, 'An entitlement has already been granted for this resource'),
  invalidSku: () => new ApiError(400, 50057, 'Invalid SKU'),
  missingAccess: () => new ApiError(403, 50001, 'Missing Access'),
  notActive: () => new ApiError(400, 0, 'The subscription is not active'),
  busy: () => new ApiError(409, 0, 'The subscription is being changed right now; try again'),
};
