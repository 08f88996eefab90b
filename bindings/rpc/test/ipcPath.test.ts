// Where the companion listens and the RPC clients look, on every OS, computed here whatever OS
// runs the test: the Windows named pipe of each slot (the path the public clients open), the Unix
// socket in the first set of XDG_RUNTIME_DIR, TMPDIR, TMP, TEMP or /tmp, and names refused.
import { describe, expect, it } from 'vitest';
import { DEFAULT_IPC_NAME, IPC_SLOTS, ipcDirectory, ipcPath } from '../src/ipcPath.ts';

describe('IPC paths', () => {
  it('on Windows: the named pipe \\\\?\\pipe\\<name>-ipc-<n>, for each of the ten slots', () => {
    expect(ipcPath('discord', 0, { platform: 'win32' })).toBe('\\\\?\\pipe\\discord-ipc-0');
    expect(Array.from({ length: IPC_SLOTS }, (_, n) => ipcPath(DEFAULT_IPC_NAME, n, { platform: 'win32', env: { XDG_RUNTIME_DIR: '/run/user/1' } }))).toEqual(
      Array.from({ length: 10 }, (_, n) => `\\\\?\\pipe\\social-layer-ipc-${n}`),
    );
  });

  it('elsewhere: a socket in the first directory set, as the public clients pick it', () => {
    expect(ipcPath('discord', 3, { platform: 'linux', env: { XDG_RUNTIME_DIR: '/run/user/1000', TMPDIR: '/var/tmp' } })).toBe('/run/user/1000/discord-ipc-3');
    expect(ipcPath('discord', 0, { platform: 'darwin', env: { TMPDIR: '/var/folders/xy/T/' } })).toBe('/var/folders/xy/T/discord-ipc-0');
    expect(ipcDirectory({ TMP: '/tmp2', TEMP: '/tmp3' })).toBe('/tmp2');
    expect(ipcDirectory({ XDG_RUNTIME_DIR: '', TEMP: '/tmp3' })).toBe('/tmp3');
    expect(ipcDirectory({})).toBe('/tmp');
  });

  it('refuses names that would leave the directory or the pipe namespace', () => {
    for (const name of ['../x', 'a/b', 'a\\b', '', 'x'.repeat(65)]) expect(() => ipcPath(name, 0, { platform: 'win32' }), name).toThrow(/Invalid IPC name/);
  });
});
