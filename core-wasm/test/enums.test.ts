import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_ENUMS, GENERATED_PATH, renderEnums } from '../scripts/genEnums.ts';
import { LobbyEventKind } from '../src/index.ts';

describe('generated AssemblyScript enums (DESIGN.md convention 2)', () => {
  it('assembly/generated/enums.ts matches its TS sources', () => {
    // On failure: node --import tsx core-wasm/scripts/genEnums.ts
    expect(readFileSync(GENERATED_PATH, 'utf8')).toBe(renderEnums());
  });

  it('copies the contract event kinds', () => {
    expect(LobbyEventKind).toEqual({
      LobbyCreated: 1,
      LobbyDeleted: 2,
      LobbyUpdated: 3,
      MemberAdded: 4,
      MemberRemoved: 5,
      MemberUpdated: 6,
    });
    expect(GENERATED_ENUMS.map((e) => e.name)).toContain('LobbyEventKind');
  });
});
