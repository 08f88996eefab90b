import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { resumeKeys } from '../events/resumeKeys.ts';
import { TrimClock, trimIntervalMs } from '../events/trimClock.ts';

/** What a node needs to rebuild a session it takes over (the rest is in the session's stream). */
export interface SessionMeta {
  kind: 'bearer' | 'bot';
  intents: number;
  capabilities: number;
}

export interface ClaimedSession extends SessionMeta {
  userId: string;
  applicationId: string;
  /** The node that held the session before this claim (the claimant itself when it never left). */
  previousNode: string;
  /** Last user-stream entry before the session subscribed: entries up to it predate the session. */
  from: string;
  /** Newest user-stream entry among the frames the age trim removed ('0-0': none): the session had it. */
  trimmedUpTo: string;
}

/** A sent frame as the session stream keeps it: its sequence, the frame, the user-stream entry it came from. */
export interface StoredFrame {
  s: number;
  frame: string;
  u: string;
}

export interface RestoredSession {
  frames: StoredFrame[];
  /** User-topic dispatches the session never got (published while nobody held it), oldest first. */
  missed: { id: string; t: string; json: string }[];
  /** Every user-stream entry the frames and `missed` cover: a live copy of one of them is a duplicate. */
  seen: Set<string>;
}

export interface RedisSessionStoreOptions {
  /** This node's ID: the owner named in the records it holds. */
  nodeId: string;
  prefix: string;
  /** A detached session's record lives this long (the resume window). */
  resumeWindowMs: number;
  /** An attached session's record lives this long unless a heartbeat refreshes it (a dead node's sessions lapse). */
  attachedTtlMs: number;
  /** Frames kept per session stream (MAXLEN ~). */
  maxLen: number;
  /** Frames older than this are trimmed at the next age trim (resumeKeys.streamMaxAgeMs, trimClock.ts). */
  maxAgeMs: number;
}

/**
 * Appends a frame only while this node still owns the session (a fence: after a takeover the old
 * node's writes fail). A stream it creates gets its expiry at once (the first XADD is NOMKSTREAM:
 * nil when there is no stream yet). Both trims are exact, and each records in the session's hash
 * (`tu`) the newest user-stream entry among the frames it removed: the session had those
 * entries, and a Resume must not send them again once their frames are gone (see restore).
 * - By count (ARGV[5]): the oldest frames past it go on every append. `MAXLEN ~` trimmed
 *   silently before, so a session sent more frames than that within the age bound (a bot's
 *   guild frames), with few of its user's among them, had old user entries sent again on a
 *   Resume elsewhere, after the newer frames.
 * - By age, when the node asks (ARGV[7] > 0: about once per interval per session,
 *   trimClock.ts): it renews the stream's expiry (heartbeats renew it too, EXPIRE) and trims
 *   frames older than the age bound (ARGV[7], on the Redis clock, which stamps the IDs).
 * At most 256 frames go per trim, so one append never stalls Redis; the next takes the rest.
 */
const APPEND = `
if redis.call('HGET', KEYS[1], 'node') ~= ARGV[1] then return 0 end
if not redis.call('XADD', KEYS[2], 'NOMKSTREAM', '*', 's', ARGV[2], 'f', ARGV[3], 'u', ARGV[4]) then
  redis.call('XADD', KEYS[2], '*', 's', ARGV[2], 'f', ARGV[3], 'u', ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[6])
  return 1
end
local function newer(a, b)
  if b == false or b == nil or b == '' then return true end
  local am, as = string.match(a, '(%d+)-(%d+)')
  local bm, bs = string.match(b, '(%d+)-(%d+)')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am > bm or (am == bm and as > bs)
end
local tu = nil
local changed = false
local function drop(entries)
  if #entries == 0 then return end
  if tu == nil then tu = redis.call('HGET', KEYS[1], 'tu') end
  for _, e in ipairs(entries) do
    local f = e[2]
    for i = 1, #f, 2 do
      if f[i] == 'u' and f[i + 1] ~= '' and newer(f[i + 1], tu) then
        tu = f[i + 1]
        changed = true
      end
    end
    redis.call('XDEL', KEYS[2], e[1])
  end
end
local over = redis.call('XLEN', KEYS[2]) - tonumber(ARGV[5])
if over > 0 then drop(redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', math.min(over, 256))) end
if tonumber(ARGV[7]) > 0 then
  redis.call('PEXPIRE', KEYS[2], ARGV[6])
  local now = redis.call('TIME')
  local cutoff = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) - tonumber(ARGV[7])
  if cutoff > 0 then drop(redis.call('XRANGE', KEYS[2], '-', '(' .. string.format('%d', cutoff) .. '-0', 'COUNT', 256)) end
end
if changed then redis.call('HSET', KEYS[1], 'tu', tu) end
return 1
`;

/** Moves the session to the claimant if the token hash matches; returns the record as it was. */
const CLAIM = `
local rec = redis.call('HGETALL', KEYS[1])
if #rec == 0 then return false end
if redis.call('HGET', KEYS[1], 'th') ~= ARGV[1] then return false end
redis.call('HSET', KEYS[1], 'node', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return rec
`;

/** Deletes the record and frames, but only the owner's (a node that lost the session must not end it). */
const END = `
if redis.call('HGET', KEYS[1], 'node') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
`;

/** Sets the session's start in the user stream, only on a record this node still owns (not one ended meanwhile). */
const MARK_FROM = `
if redis.call('HGET', KEYS[1], 'node') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'from', ARGV[2])
return 1
`;

/** Sets expiries of record and frames only while this node owns them. */
const EXPIRE = `
if redis.call('HGET', KEYS[1], 'node') ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
`;

/**
 * How many of the latest user-stream entries a session holds are read back as "maybe not in
 * order": a node delivers its own publishes when Redis answers and others' through pub/sub, so
 * a session may see two entries in either order. Below that window everything counts as held.
 */
const REORDER_WINDOW = 256;

type Cmds = Redis & {
  gwAppend(...a: (string | number)[]): Promise<number>;
  gwClaim(...a: (string | number)[]): Promise<string[] | null>;
  gwEnd(...a: (string | number)[]): Promise<number>;
  gwExpire(...a: (string | number)[]): Promise<number>;
  gwMarkFrom(...a: (string | number)[]): Promise<number>;
};

/**
 * Gateway sessions shared through Redis, so a client cut from one node resumes on any other
 * (DESIGN.md, Storage and scale). Per session: a record (hash; token as a SHA-256 hash only) and a
 * stream of the frames it was sent. Per user: a marker and a stream that the bus appends every
 * user-topic dispatch to (RedisEventBus), which covers what was published while nobody held the
 * session. The node that takes a session over claims the record (fencing the old owner's writes),
 * then rebuilds the numbering from the two streams.
 */
export class RedisSessionStore {
  private readonly redis: Cmds;
  /** When a session stream's upkeep is due (0 in ARGV[7] skips it: expiry renewal and age trim). */
  private readonly trims: TrimClock;

  constructor(url: string, private readonly options: RedisSessionStoreOptions) {
    // Not auto-pipelined, for the reason given in RedisEventBus's constructor (order of writes).
    this.redis = new Redis(url, { maxRetriesPerRequest: 3 }) as Cmds;
    this.trims = new TrimClock(trimIntervalMs(options.maxAgeMs, options.attachedTtlMs));
    this.redis.defineCommand('gwAppend', { numberOfKeys: 2, lua: APPEND });
    this.redis.defineCommand('gwClaim', { numberOfKeys: 2, lua: CLAIM });
    this.redis.defineCommand('gwEnd', { numberOfKeys: 2, lua: END });
    this.redis.defineCommand('gwExpire', { numberOfKeys: 2, lua: EXPIRE });
    this.redis.defineCommand('gwMarkFrom', { numberOfKeys: 1, lua: MARK_FROM });
  }

  get nodeId(): string {
    return this.options.nodeId;
  }

  /** Over the bare token: Identify and Resume may spell it with or without a `Bearer `/`Bot ` prefix. */
  static tokenHash(token: string): string {
    return createHash('sha256').update(token.replace(/^(Bearer|Bot)\s+/i, '')).digest('hex');
  }

  private keys(sessionId: string): [string, string] {
    return [resumeKeys.session(this.options.prefix, sessionId), resumeKeys.sessionStream(this.options.prefix, sessionId)];
  }

  /** Before the session subscribes: from now on its user's dispatches are streamed. */
  async open(sessionId: string, userTopic: string, userId: string, applicationId: string, token: string, meta: SessionMeta): Promise<void> {
    const [rec] = this.keys(sessionId);
    const ttl = this.options.attachedTtlMs;
    await this.redis
      .multi()
      .hset(rec, { user: userId, app: applicationId, th: RedisSessionStore.tokenHash(token), node: this.nodeId, kind: meta.kind, intents: meta.intents, caps: meta.capabilities, from: '0-0' })
      .pexpire(rec, ttl)
      .set(resumeKeys.userMarker(this.options.prefix, userTopic), '1', 'PX', this.markerTtl())
      .exec();
  }

  /** After the subscription is live: entries up to the stream's last one predate the session. */
  async markFrom(sessionId: string, userTopic: string): Promise<void> {
    const last = await this.redis.xrevrange(resumeKeys.userStream(this.options.prefix, userTopic), '+', '-', 'COUNT', 1);
    const from = last[0]?.[0];
    // A plain HSET wrote the record back, with no expiry, when the session ended (a clean close,
    // revoked tokens) between open and here: a key left in Redis for good.
    if (from) await this.redis.gwMarkFrom(this.keys(sessionId)[0], this.nodeId, from);
  }

  /** Resolves false when another node owns the session now (this one must let it go). */
  async append(sessionId: string, s: number, frame: string, u: string): Promise<boolean> {
    const [rec, stream] = this.keys(sessionId);
    const maxAgeMs = this.trims.due(sessionId) ? this.options.maxAgeMs : 0;
    return (await this.redis.gwAppend(rec, stream, this.nodeId, s, frame, u, this.options.maxLen, this.options.attachedTtlMs, maxAgeMs)) === 1;
  }

  /** The node that holds the session now (null: no record). */
  owner(sessionId: string): Promise<string | null> {
    return this.redis.hget(this.keys(sessionId)[0], 'node').catch(() => null);
  }

  /** A heartbeat: the session is alive here. */
  refresh(sessionId: string, userTopic: string): void {
    const [rec, stream] = this.keys(sessionId);
    this.redis.gwExpire(rec, stream, this.nodeId, this.options.attachedTtlMs).catch(() => {});
    this.redis.pexpire(resumeKeys.userMarker(this.options.prefix, userTopic), this.markerTtl()).catch(() => {});
  }

  /** The socket dropped: the session can be resumed (here or elsewhere) for the resume window. */
  detached(sessionId: string, userTopic: string): void {
    const [rec, stream] = this.keys(sessionId);
    this.redis.gwExpire(rec, stream, this.nodeId, this.options.resumeWindowMs).catch(() => {});
    this.redis.pexpire(resumeKeys.userMarker(this.options.prefix, userTopic), this.markerTtl()).catch(() => {});
  }

  /** The session ended for good (clean close, expiry, revoked token): no node may resume it. */
  ended(sessionId: string): Promise<void> {
    const [rec, stream] = this.keys(sessionId);
    return this.redis.gwEnd(rec, stream, this.nodeId).then(
      () => undefined,
      () => undefined,
    );
  }

  /** Takes the session for this node when the token matches; null when it is unknown, expired or not this token's. */
  async claim(sessionId: string, token: string): Promise<ClaimedSession | null> {
    const [rec, stream] = this.keys(sessionId);
    const raw = await this.redis.gwClaim(rec, stream, RedisSessionStore.tokenHash(token), this.nodeId, this.options.attachedTtlMs);
    if (!raw) return null;
    const f: Record<string, string> = {};
    for (let i = 0; i + 1 < raw.length; i += 2) f[raw[i]!] = raw[i + 1]!;
    return {
      userId: f.user!,
      applicationId: f.app!,
      kind: f.kind === 'bot' ? 'bot' : 'bearer',
      intents: Number(f.intents ?? 0),
      capabilities: Number(f.caps ?? 0),
      previousNode: f.node!,
      from: f.from ?? '0-0',
      trimmedUpTo: f.tu ?? '0-0',
    };
  }

  /**
   * The frames a claimed session was sent, and the user-topic dispatches it missed; 'lost' when
   * either stream no longer holds what the session needs (the client then identifies anew).
   */
  async restore(sessionId: string, userTopic: string, from: string, trimmedUpTo = '0-0'): Promise<RestoredSession | 'lost'> {
    const [, stream] = this.keys(sessionId);
    const raw = await this.redis.xrange(stream, '-', '+');
    if (raw.length === 0) return 'lost';
    const frames: StoredFrame[] = raw.map(([, fields]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
      return { s: Number(f.s), frame: f.f ?? '', u: f.u ?? '' };
    });
    const held = frames.map((f) => f.u).filter((u) => u !== '');
    const seen = new Set(held);
    // Entries at or below the floor count as held: the session was subscribed in order up to there,
    // and the age trim removed only frames of entries it had (trimmedUpTo).
    let floor = maxId(from, trimmedUpTo);
    if (held.length > REORDER_WINDOW) floor = maxId(floor, [...held].sort(compareIds)[held.length - REORDER_WINDOW - 1]!);
    const userStream = resumeKeys.userStream(this.options.prefix, userTopic);
    const [after, atFloor, info] = await Promise.all([
      this.redis.xrange(userStream, floor === '0-0' ? '-' : `(${floor}`, '+'),
      floor === '0-0' ? Promise.resolve([]) : this.redis.xrange(userStream, floor, floor),
      this.redis.call('XINFO', 'STREAM', userStream).catch(() => null) as Promise<unknown[] | null>,
    ]);
    // Trimming removes the oldest entries first: when the floor entry is gone and the stream was
    // ever trimmed, entries the session needs may be gone too. Only trimming by count can take
    // them: the age trim removes nothing a resumable session lacks (streamMaxAgeMs). And had the
    // count trim taken one, the entries after it, all too young for the age trim, would still
    // fill the stream to its count: a stream below its count lost nothing the session needs.
    if (info && atFloor.length === 0) {
      const fields = new Map<string, unknown>();
      for (let i = 0; i + 1 < info.length; i += 2) fields.set(String(info[i]), info[i + 1]);
      const length = Number(fields.get('length') ?? 0);
      if (Number(fields.get('entries-added') ?? 0) > length && length >= this.options.maxLen) return 'lost';
    }
    const missed: RestoredSession['missed'] = [];
    for (const [id, fields] of after) {
      if (seen.has(id)) continue;
      const f: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
      missed.push({ id, t: f.t ?? '', json: f.j ?? 'null' });
      seen.add(id);
    }
    for (const [id] of after) seen.add(id);
    return { frames, missed, seen };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => {});
  }

  /** Longer than any record of the user's sessions, so the marker never lapses before them. */
  private markerTtl(): number {
    return Math.max(this.options.attachedTtlMs, this.options.resumeWindowMs);
  }
}

function parseId(id: string): [number, number] {
  const dash = id.indexOf('-');
  return [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
}

export function compareIds(a: string, b: string): number {
  const [am, as] = parseId(a);
  const [bm, bs] = parseId(b);
  return am !== bm ? am - bm : as - bs;
}

function maxId(a: string, b: string): string {
  return compareIds(a, b) >= 0 ? a : b;
}
