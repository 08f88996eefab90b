// What Client.authorize() puts in the authorize URL from AuthorizationArgs: the integration type
// (guild or user install) goes as `integration_type`, and only when it was set; the server's
// authorize check takes exactly 0 and 1.
import { IntegrationType } from '@social-layer/protocol';
import { describe, expect, it } from 'vitest';
import { AuthorizationArgs } from '../src/auth/AuthorizationArgs.ts';
import { authorizeUrl } from '../src/auth/authorizeFlow.ts';

const query = (args: AuthorizationArgs) => new URL(authorizeUrl('https://social.example/api/v10', '123', args, 'http://127.0.0.1/cb', 'st')).searchParams;

describe('AuthorizationArgs.setIntegrationType', () => {
  it('sends integration_type only when set, as 0 (guild install) or 1 (user install)', () => {
    const args = new AuthorizationArgs();
    args.setScopes('identify guilds');
    expect(query(args).has('integration_type')).toBe(false);
    args.setIntegrationType(IntegrationType.UserInstall);
    expect(args.integrationType()).toBe(1);
    expect(query(args).get('integration_type')).toBe('1');
    args.setIntegrationType(IntegrationType.GuildInstall);
    expect(query(args).get('integration_type')).toBe('0');
    // A copy keeps it; clearing it drops the parameter.
    expect(query(new AuthorizationArgs(args)).get('integration_type')).toBe('0');
    args.setIntegrationType(undefined);
    expect(query(args).has('integration_type')).toBe(false);
    expect(query(args).get('scope')).toBe('identify guilds');
  });
});
