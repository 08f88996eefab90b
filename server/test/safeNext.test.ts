import { describe, expect, it } from 'vitest';
import { safeNext } from '../src/accounts/webSession.ts';

describe('safeNext (where sign-in and sign-up send you afterwards)', () => {
  it('keeps same-site paths', () => {
    for (const next of ['/account', '/oauth2/authorize?client_id=1&scope=openid', '/activate?user_code=ABCD-EFGH']) expect(safeNext(next)).toBe(next);
  });

  it('refuses anything a browser could turn into another origin', () => {
    for (const next of [
      'https://evil.example/',
      '//evil.example',
      '/\\evil.example',
      '/\t/evil.example',
      '/\n/evil.example',
      '/\r\n/evil.example',
      ' /evil',
      'javascript:alert(1)',
      '/ok\u0000',
      'x'.repeat(10),
      '/' + 'a'.repeat(5000),
      '',
      null,
      undefined,
    ]) {
      expect(safeNext(next as string | null | undefined), JSON.stringify(next)).toBe('/account');
    }
  });
});
