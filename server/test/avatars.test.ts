// Default avatar images (issue 19): the CDN path UserHandle.avatarUrl builds for a user without
// an avatar of their own, `/embed/avatars/{(id >> 22) % 6}.png?size=N`, served as real PNGs
// (decoded here with pngjs); bad sizes are 400 50035, other files 404.
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
  cleanupTempDirs();
});

async function image(path: string): Promise<{ status: number; type: string | null; png?: PNG; body: Buffer }> {
  const res = await fetch(t.server.url + path);
  const body = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type');
  return { status: res.status, type, body, ...(type === 'image/png' ? { png: PNG.sync.read(body) } : {}) };
}

function pixel(png: PNG, x: number, y: number): number[] {
  const i = (y * png.width + x) * 4;
  return [...png.data.subarray(i, i + 4)];
}

describe('default avatars', () => {
  it('serves six distinct PNGs at 256 pixels by default, a figure on a coloured ground', async () => {
    const corners = new Set<string>();
    for (let index = 0; index < 6; index++) {
      const r = await image(`/embed/avatars/${index}.png`);
      expect(r.status).toBe(200);
      expect(r.type).toBe('image/png');
      expect(r.body.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect([r.png!.width, r.png!.height]).toEqual([256, 256]);
      corners.add(pixel(r.png!, 0, 0).join());
      // The head, white, in the middle of the upper half.
      expect(pixel(r.png!, 128, 100)).toEqual([255, 255, 255, 255]);
    }
    expect(corners.size).toBe(6);
  });

  it('respects ?size= (powers of two); above 1024 the 1024-pixel image is sent; HEAD answers the same type', async () => {
    for (const size of [16, 64, 1024]) {
      const r = await image(`/embed/avatars/3.png?size=${size}`);
      expect(r.status).toBe(200);
      expect([r.png!.width, r.png!.height]).toEqual([size, size]);
    }
    const big = await image('/embed/avatars/3.png?size=4096');
    expect([big.png!.width, big.png!.height]).toEqual([1024, 1024]);
    const head = await fetch(`${t.server.url}/embed/avatars/1.png`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('image/png');
  });

  it('refuses sizes that are not powers of two from 16 to 4096 with 50035, and answers 404 for any other file', async () => {
    for (const size of ['100', '8', '8192', 'big', '-16']) {
      const res = await fetch(`${t.server.url}/embed/avatars/0.png?size=${size}`);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { code: number; errors: any };
      expect(body.code).toBe(50035);
      expect(body.errors.size._errors[0].code).toBe('BASE_TYPE_CHOICES');
    }
    for (const path of ['/embed/avatars/6.png', '/embed/avatars/00.png', '/embed/avatars/1.jpg', '/embed/avatars/1', '/embed/avatars/..%2F..%2Fpackage.json', '/avatars/123456789012345678/abcdef.png']) {
      const res = await fetch(t.server.url + path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(((await res.json()) as { code: number }).code).toBe(0);
    }
  });

  it('the URL of a real user without an avatar loads: index (id >> 22) % 6', async () => {
    const guest = await t.guest('Pictureless');
    const me = (await t.req('GET', '/users/@me', { token: guest.token })).body;
    expect(me.avatar).toBeNull();
    const index = Number((BigInt(me.id) >> 22n) % 6n);
    const r = await image(`/embed/avatars/${index}.png?size=32`);
    expect(r.status).toBe(200);
    expect(r.png!.width).toBe(32);
  });
});
