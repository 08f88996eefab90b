/**
 * `Authorization: Bearer <token>` or `Bot <token>` (protocols.md 2.1). The scheme is matched
 * without regard to case and the whitespace around and after it is free (tabs, several spaces),
 * so every spelling of one token is the same credential.
 */
export function parseAuthorization(header: string | undefined): { scheme: 'bearer' | 'bot' | 'session'; token: string } | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^(Bearer|Bot)[ \t]+(\S{1,512})$/i.exec(header.trim());
  if (match) return { scheme: match[1]!.toLowerCase() as 'bearer' | 'bot', token: match[2]! };
  // No scheme: the platform's own client (the web app) sends its session token bare, as the
  // public platform's client does. Only tokens of the first-party application resolve this way.
  const bare = /^([A-Za-z0-9_-]{43})$/.exec(header.trim());
  return bare ? { scheme: 'session', token: bare[1]! } : undefined;
}
