/**
 * Route schemas: TypeBox pieces with the public API's limits and error vocabulary, the validator
 * that turns failures into the 50035 tree, response shapes, and the OpenAPI registration.
 * Routes import from here: `import { Type, Str, IdParam, NotFound, ... } from '../schemas/index.ts'`.
 */
export { Type, type Static, type TSchema } from 'typebox';
export type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
export * from '../../schemas/primitives.ts';
export * from './responses.ts';
export { FormField, pageRoute } from './pages.ts';
export { BEARER, BEARER_OR_BOT, BOT, CLIENT, DOCS_PATH, OPENAPI_PATH, type RegisteredRoute, registeredRoutes, registerOpenApi } from './openapi.ts';
export { describeOnly, errorTree, formErrorOf, parseWith, validatorCompiler } from '../../schemas/validator.ts';
