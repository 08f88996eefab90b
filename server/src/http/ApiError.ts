// The error type lives at the ground floor (errors/), where the domain services that throw it can
// reach it; the HTTP layer's files keep this path, and createHttpApp maps it to the response.
export { ApiError, Errors } from '../errors/ApiError.ts';
