import type { FastifySchema } from 'fastify';
import { Type } from 'typebox';
import { describeOnly } from '../../schemas/validator.ts';

/**
 * Route options for the platform's HTML pages (sign-in, consent, account, device activation, the
 * developer portal). Their schemas describe the query, path and form fields for the OpenAPI
 * document; a page answers bad input by re-rendering itself with a message (or a 403/404 page),
 * never with JSON, so its handler reads the form (`formOf`) and checks it, and the schema is not
 * enforced (`describeOnly`). Form posts are application/x-www-form-urlencoded.
 */
export function pageRoute(schema: Omit<FastifySchema, 'tags'> & { summary: string; consumes?: string[] }) {
  const isForm = schema.body !== undefined;
  return {
    schema: { tags: ['pages'], ...(isForm ? { consumes: ['application/x-www-form-urlencoded'] } : {}), ...schema } as FastifySchema,
    validatorCompiler: describeOnly,
  };
}

/** A form field that the page checks itself (length, format), documented as a string. */
export const FormField = (description: string) => Type.Optional(Type.String({ description }));
