// The permission table the server keeps (so it need not load discord-api-types at run time) is the
// public one: every name and bit of discord-api-types' PermissionFlagsBits, and nothing else.
import { PermissionFlagsBits as Public } from 'discord-api-types/v10';
import { describe, expect, it } from 'vitest';
import { PermissionFlagsBits } from '../src/guilds/permissionBits.ts';

describe('permission bits', () => {
  it('equal discord-api-types PermissionFlagsBits, name for name and bit for bit', () => {
    expect(Object.keys(PermissionFlagsBits)).toEqual(Object.keys(Public));
    for (const [name, bit] of Object.entries(Public)) expect(PermissionFlagsBits[name as keyof typeof PermissionFlagsBits], name).toBe(bit);
  });
});
