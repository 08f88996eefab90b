import type { FastifyInstance, FastifyRequest } from 'fastify';
import { auditScope, type AuditScope } from '../moderation/auditContext.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** This write request's audit scope (moderation/auditContext.ts); null on reads. */
    audit: AuditScope | null;
  }
}

/**
 * Gives every write request (not GET, HEAD or OPTIONS, which change nothing audited) its audit
 * scope. Routes pass `req.audit` to the services whose changes the audit log records.
 */
export function installRequestAudit(app: FastifyInstance, actorOf: (req: FastifyRequest) => Promise<string | null>): void {
  app.decorateRequest('audit', null);
  app.addHook('onRequest', (req, _reply, done) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') req.audit = auditScope(req.headers['x-audit-log-reason'], () => actorOf(req));
    done();
  });
}
