// The Client API checklist (scripts/apiChecklist.ts): every Client member of the reference is
// implemented (or pending in another issue), the README's table is the generated one, the
// member list matches the reference where the reference is at hand, and the check does fail
// for a member that does not exist.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildChecklist, missing, readMembers, readmeIsCurrent, referenceMembers, referencePath, renderTable } from '../scripts/apiChecklist.ts';

describe('Client API checklist', () => {
  it('every reference member is implemented or pending in a named issue, each with its file', () => {
    const rows = buildChecklist();
    expect(rows.length).toBeGreaterThan(150);
    expect(missing(rows).map((r) => r.native)).toEqual([]);
    for (const row of rows.filter((r) => r.file)) expect(row.file).toMatch(/^src\/[\w/]+\.ts$/);
    // The members of issue 19 are all there, in the parts the issue names.
    const where = Object.fromEntries(rows.map((r) => [r.native, r.file]));
    expect(where.SetEchoCancellation).toBe('src/voice/VoiceManager.ts');
    expect(where.SetAecDump).toBe('src/voice/VoiceManager.ts');
    expect(where.AddVoiceLogCallback).toBe('src/voice/VoiceManager.ts');
    expect(where.CreateOrJoinLobby).toBe('src/lobbies/Lobbies.ts');
    expect(where.SearchFriendsByUsername).toBe('src/users/Users.ts');
    expect(where.GetVersionHash).toBe('src/version.ts');
    expect(where.OpenAuthorizeDeviceScreen).toBe('src/auth/AuthorizeDeviceScreen.ts');
    expect(where.SetLogDir).toBe('src/diagnostics/Platform.ts');
  });

  it('each member added for issue 19 has a TSDoc comment on the Client', () => {
    const text = readFileSync(new URL('../src/Client.ts', import.meta.url), 'utf8');
    const added = [
      'getVersionMajor', 'getVersionMinor', 'getVersionPatch', 'getVersionHash', 'threadToString', 'setThreadPriority', 'setLogDir',
      'setVoiceLogDir', 'addVoiceLogCallback', 'getCurrentUser', 'getDiscordClientConnectedUser', 'searchFriendsByUsername',
      'setActivityJoinCallback', 'setActivityJoinWithApplicationCallback', 'registerLaunchSteamApplication', 'setGameWindowPid',
      'getUserApplicationProfiles', 'getUserApplicationProfilesNoLock', 'openAuthorizeDeviceScreen', 'closeAuthorizeDeviceScreen',
      'setAuthorizeDeviceScreenClosedCallback', 'setEchoCancellation', 'setNoiseSuppression', 'setNoiseCancellation',
      'setAutomaticGainControl', 'setNoAudioInputThreshold', 'setNoAudioInputCallback', 'setOpusHardwareCoding', 'setSpeakerMode',
      'showAudioRoutePicker', 'setEngineManagedAudioSession', 'setAecDump',
    ];
    const undocumented = added.filter((name) => !new RegExp(`\\*/\\n  (?:static )?(?:async )?${name}\\(`).test(text));
    expect(undocumented).toEqual([]);
  });

  it('the README holds the generated table (node --import tsx bindings/client/scripts/apiChecklist.ts --write)', () => {
    expect(readmeIsCurrent(buildChecklist())).toBe(true);
  });

  it('fails for a member Client.ts does not have', () => {
    const rows = buildChecklist([...readMembers(), { native: 'SetWarpDrive', section: '99' }]);
    expect(missing(rows).map((r) => r.native)).toEqual(['SetWarpDrive']);
    expect(renderTable(rows)).toContain('pending: MISSING');
  });

  it('the member list is the reference\'s (when the reference is beside the repository)', (context) => {
    const path = referencePath();
    if (!path) {
      context.skip();
      return;
    }
    const fromReference = referenceMembers(readFileSync(path, 'utf8')).sort();
    expect(readMembers().map((m) => m.native).sort()).toEqual(fromReference);
  });
});
