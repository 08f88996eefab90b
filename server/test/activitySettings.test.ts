// Activity settings (issue 17): enable activities, URL mappings (root + extra prefixes),
// supported platforms, orientation. Checked as a whole (every problem at once, nothing written on
// a refusal) on SQLite and PostgreSQL; the admin CLI's `apps update --activities --url-mapping`;
// the developer portal's page.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ActivityService } from '../src/activities/ActivityService.ts';
import { matchMapping } from '../src/activities/activitySettings.ts';
import { UrlPolicy } from '../src/config/urlPolicy.ts';
import { ApiError } from '../src/http/ApiError.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, tempDir } from './harness.ts';
import { PageSession } from './oauthHelpers.ts';

const BIN = fileURLToPath(new URL('../bin/social-layer.js', import.meta.url));

afterAll(async () => {
  await dropTestSchemas();
  cleanupTempDirs();
});

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

for (const { name, config } of databaseConfigs()) {
  describe(`activity settings (${name})`, () => {
    it('defaults, a full edit, partial edits, and refusals that write nothing', async () => {
      const t = await startTestServer({ database: config(), rateLimits: false });
      try {
        const prod = new ActivityService(t.server.store, new UrlPolicy(false));
        const dev = new ActivityService(t.server.store, new UrlPolicy(true));
        expect(await prod.settings(t.app.id)).toEqual({ enabled: false, url_mappings: [], supported_platforms: ['web'], orientation: 'unlocked' });

        const saved = await prod.updateSettings(t.app.id, {
          enabled: true,
          url_mappings: [{ prefix: '/', target: 'game.example.com' }, { prefix: '/api', target: 'api.example.com/v1' }, { prefix: '/api/chat/', target: 'chat.example.com' }],
          supported_platforms: ['web', 'ios'],
          orientation: 'landscape',
        });
        // Trailing slashes dropped; longest prefix first, the root last.
        expect(saved).toEqual({
          enabled: true,
          url_mappings: [{ prefix: '/api/chat', target: 'chat.example.com' }, { prefix: '/api', target: 'api.example.com/v1' }, { prefix: '/', target: 'game.example.com' }],
          supported_platforms: ['web', 'ios'],
          orientation: 'landscape',
        });
        expect(await prod.settings(t.app.id)).toEqual(saved);
        expect((await prod.updateSettings(t.app.id, { orientation: 'portrait' })).url_mappings).toEqual(saved.url_mappings);

        // Every problem at once, in the public 50035 tree; nothing written.
        const bad = await refusal(prod.updateSettings(t.app.id, {
          url_mappings: [
            { prefix: '/', target: 'http://game.example.com' },
            { prefix: 'api', target: 'api.example.com' },
            { prefix: '/a/../b', target: 'x.example.com' },
            { prefix: '/.proxy/x', target: 'x.example.com' },
            { prefix: '/dup', target: 'a.example.com' },
            { prefix: '/dup/', target: 'b.example.com' },
            { prefix: '/local', target: '127.0.0.1:6379' },
            { prefix: '/q', target: 'q.example.com/?a=1' },
          ],
          supported_platforms: ['web', 'switch' as never],
          orientation: 'sideways' as never,
        }));
        expect(bad.status).toBe(400);
        expect((bad.body() as any).code).toBe(50035);
        const errors = (bad.body() as any).errors;
        expect(errors.url_mappings['0'].target._errors[0].code).toBe('URL_TYPE_INVALID_SCHEME');
        expect(errors.url_mappings['1'].prefix._errors[0].code).toBe('ACTIVITY_URL_MAPPING_PREFIX_INVALID');
        expect(errors.url_mappings['2'].prefix._errors[0].code).toBe('ACTIVITY_URL_MAPPING_PREFIX_INVALID');
        expect(errors.url_mappings['3'].prefix._errors[0].code).toBe('ACTIVITY_URL_MAPPING_PREFIX_INVALID');
        expect(errors.url_mappings['5'].prefix._errors[0].code).toBe('ACTIVITY_URL_MAPPING_PREFIX_DUPLICATE');
        expect(errors.url_mappings['6'].target._errors[0].code).toBe('URL_TYPE_INVALID_HOST');
        expect(errors.url_mappings['7'].target._errors[0].code).toBe('URL_TYPE_INVALID_URL');
        expect(errors.supported_platforms['1']._errors[0].code).toBe('BASE_TYPE_CHOICES');
        expect(errors.orientation._errors[0].code).toBe('BASE_TYPE_CHOICES');
        expect((await prod.settings(t.app.id)).orientation).toBe('portrait');

        // Enabled needs the root mapping; development mode takes loopback http targets.
        const noRoot = await refusal(prod.updateSettings(t.app.id, { url_mappings: [{ prefix: '/api', target: 'api.example.com' }] }));
        expect((noRoot.body() as any).errors.url_mappings._errors[0].code).toBe('ACTIVITY_ROOT_MAPPING_REQUIRED');
        expect((await dev.updateSettings(t.app.id, { url_mappings: [{ prefix: '/', target: 'http://127.0.0.1:5173' }] })).url_mappings).toEqual([{ prefix: '/', target: 'http://127.0.0.1:5173' }]);
        // Disabled without mappings is fine; an unknown application is 10002.
        expect((await prod.updateSettings(t.app.id, { enabled: false, url_mappings: [] })).enabled).toBe(false);
        expect(((await refusal(prod.updateSettings('123456789012345678', { enabled: false }))).body() as any).code).toBe(10002);
      } finally {
        await t.close();
      }
    });
  });
}

describe('URL mapping match', () => {
  const mappings = [{ prefix: '/api/chat', target: 'c' }, { prefix: '/api', target: 'a' }, { prefix: '/', target: 'r' }];
  it('takes the longest prefix on a segment boundary, the root for the rest', () => {
    expect(matchMapping(mappings, '/api/chat/x')).toEqual({ mapping: mappings[0], rest: '/x' });
    expect(matchMapping(mappings, '/api')).toEqual({ mapping: mappings[1], rest: '' });
    expect(matchMapping(mappings, '/api/token')).toEqual({ mapping: mappings[1], rest: '/token' });
    expect(matchMapping(mappings, '/apix/token')).toEqual({ mapping: mappings[2], rest: '/apix/token' });
    expect(matchMapping(mappings.slice(0, 2), '/other')).toBeUndefined();
  });
});

describe('admin CLI: apps update with activity options', () => {
  it('enables activities with repeatable --url-mapping; bad input exits 2 and writes nothing', () => {
    const data = tempDir();
    const made = spawnSync(process.execPath, [BIN, 'apps', 'create', '--name', 'Activity Game', '--data', data], { encoding: 'utf8' });
    expect(made.status).toBe(0);
    const id = JSON.parse(made.stdout).id as string;
    const r = spawnSync(process.execPath, [BIN, 'apps', 'update', '--app', id, '--activities', 'true', '--url-mapping', '/=game.example.com', '--url-mapping', '/api=api.example.com', '--platform', 'web', '--platform', 'android', '--orientation', 'portrait', '--data', data], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.id).toBe(id);
    expect(out.activities).toEqual({ enabled: true, url_mappings: [{ prefix: '/api', target: 'api.example.com' }, { prefix: '/', target: 'game.example.com' }], supported_platforms: ['web', 'android'], orientation: 'portrait' });

    // http on loopback needs --dev; the refusal is the 50035 body on stderr, exit 2, nothing written.
    const refused = spawnSync(process.execPath, [BIN, 'apps', 'update', '--app', id, '--url-mapping', '/=http://127.0.0.1:5173', '--redirect-uri', 'https://game.example.com/cb', '--data', data], { encoding: 'utf8' });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('50035');
    const malformed = spawnSync(process.execPath, [BIN, 'apps', 'update', '--app', id, '--url-mapping', 'no-equals-sign', '--data', data], { encoding: 'utf8' });
    expect(malformed.status).toBe(2);
    const devRun = spawnSync(process.execPath, [BIN, 'apps', 'update', '--app', id, '--url-mapping', '/=http://127.0.0.1:5173', '--dev', '--data', data], { encoding: 'utf8' });
    expect(devRun.status).toBe(0);
    const after = JSON.parse(devRun.stdout);
    expect(after.redirect_uris).toEqual([]);
    expect(after.activities.url_mappings).toEqual([{ prefix: '/', target: 'http://127.0.0.1:5173' }]);
    expect(after.activities.orientation).toBe('portrait');
  });
});

describe('developer portal: activity settings', () => {
  it('a developer saves mappings, platforms and orientation; problems are named; others see 404', async () => {
    const t = await startTestServer({ dev: true, accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
    try {
      const dev = new PageSession(t.server.url);
      await dev.signUp('activity_dev');
      const csrf = PageSession.csrf((await dev.get('/developers')).text);
      const created = await dev.submit('/developers/applications', { csrf, name: 'Activity Game' });
      const appId = /<code class="copy" id="client-id">([^<]+)<\/code>/.exec(created.text)![1]!;
      expect((await dev.get(`/developers/applications/${appId}`)).text).toContain(`href="/developers/applications/${appId}/activities"`);
      const page = (await dev.get(`/developers/applications/${appId}/activities`)).text;
      expect(page).toContain(`id="activity-origin">http://${appId}.activities.localhost:${t.server.port}</code>`);

      const bad = await dev.post(`/developers/applications/${appId}/activities`, { csrf, enabled: '1', root_target: '', rows: '1', prefix_0: '/api', target_0: 'api.example.com', platform_web: '1', orientation: 'unlocked' });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('root mapping');
      expect((await t.server.store.database.db.selectFrom('activity_settings').selectAll().execute()).length).toBe(0);

      const saved = await dev.post(`/developers/applications/${appId}/activities`, { csrf, enabled: '1', root_target: 'http://127.0.0.1:5173', rows: '2', prefix_0: '/api', target_0: 'http://127.0.0.1:5174', prefix_1: '', target_1: '', platform_web: '1', platform_ios: '1', orientation: 'landscape' });
      expect(saved.status).toBe(303);
      const again = (await dev.get(`/developers/applications/${appId}/activities?saved=1`)).text;
      expect(again).toContain('Activity settings saved.');
      expect(again).toMatch(/id="activities-enabled" name="enabled" value="1" checked/);
      expect(again).toContain('value="http://127.0.0.1:5173"');
      expect(again).toContain('value="/api"');
      expect(again).toMatch(/<option value="landscape" selected>/);

      // Without the CSRF token: refused.
      expect((await dev.post(`/developers/applications/${appId}/activities`, { enabled: '0' })).status).toBe(403);
      const stranger = new PageSession(t.server.url);
      await stranger.signUp('activity_stranger');
      const strangerCsrf = PageSession.csrf((await stranger.get('/developers')).text);
      expect((await stranger.get(`/developers/applications/${appId}/activities`)).status).toBe(404);
      expect((await stranger.post(`/developers/applications/${appId}/activities`, { csrf: strangerCsrf, enabled: '0' })).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
