// The event queue: fixed 24-byte records in unmanaged memory, drained by the wrapper in one pass
//   u64 lobbyId | u64 memberId (0 when none) | u32 kind | u32 pad
export const EVENT_SIZE: i32 = 24;

let eventsPtr: usize = 0;
let eventsCount: i32 = 0;
let eventsCap: i32 = 0;

export function pushEvent(kind: u32, lobbyId: u64, memberId: u64): void {
  if (eventsCount == eventsCap) {
    const cap = eventsCap == 0 ? 32 : eventsCap << 1;
    const size = <usize>(cap * EVENT_SIZE);
    eventsPtr = eventsPtr == 0 ? heap.alloc(size) : heap.realloc(eventsPtr, size);
    eventsCap = cap;
  }
  const p = eventsPtr + <usize>(eventsCount * EVENT_SIZE);
  store<u64>(p, lobbyId);
  store<u64>(p, memberId, 8);
  store<u32>(p, kind, 16);
  store<u32>(p, 0, 20);
  eventsCount++;
}

export function eventsAddress(): usize {
  return eventsPtr;
}

export function eventCount(): i32 {
  return eventsCount;
}

export function eventsClear(): void {
  eventsCount = 0;
}
