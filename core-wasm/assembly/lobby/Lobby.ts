import { bytesEqual, copyBytes } from './records';

@final
export class Member {
  /** Set to the snapshot's mark while diffing a snapshot against the stored members. */
  mark: u32 = 0;

  constructor(
    public id: u64,
    public connected: bool,
    public flags: u32,
    /** Canonical JSON of the member's metadata (keys sorted), or `null`. */
    public meta: StaticArray<u8>,
  ) {}

  /** True when the stored state differs from the given fields (meta read in place, not copied). */
  differs(connected: bool, flags: u32, metaPtr: usize, metaLen: u32): bool {
    return this.connected != connected || this.flags != flags || !bytesEqual(this.meta, metaPtr, metaLen);
  }

  assign(connected: bool, flags: u32, metaPtr: usize, metaLen: u32): void {
    this.connected = connected;
    this.flags = flags;
    if (!bytesEqual(this.meta, metaPtr, metaLen)) this.meta = copyBytes(metaPtr, metaLen);
  }
}

@final
export class Lobby {
  /** Members in arrival order; `index` finds them by id. */
  members: Array<Member> = new Array<Member>();
  index: Map<u64, Member> = new Map<u64, Member>();
  /** The sync generation in which the lobby was last upserted (for endSync reconciliation). */
  syncGen: u32 = 0;
  constructor(
    public id: u64,
    public meta: StaticArray<u8>,
  ) {}

  get(memberId: u64): Member | null {
    return this.index.has(memberId) ? this.index.get(memberId) : null;
  }

  add(member: Member): void {
    this.members.push(member);
    this.index.set(member.id, member);
  }

  remove(memberId: u64): bool {
    if (!this.index.has(memberId)) return false;
    this.index.delete(memberId);
    const members = this.members;
    for (let i = 0, n = members.length; i < n; i++) {
      if (unchecked(members[i]).id == memberId) {
        members.splice(i, 1);
        break;
      }
    }
    return true;
  }
}
