/**
 * The Lua scripts behind RedisConnectionTracker. Each runs atomically in Redis, which is what
 * makes every cluster-wide transition happen exactly once: the node whose script moved a user's
 * holder count from 0 to 1 (or 1 to 0, or reaped the dead node that held them last) is the one
 * that announces it, and the PUBLISH inside the same script numbers the transitions in the order
 * they happened, for every node's mirror.
 *
 * Keys under the prefix P (ARGV[1]):
 *   P..'nodes'          set of registered node ids
 *   P..'alive:'..node   string with a TTL the node refreshes; once it lapses the node is dead
 *   P..'leaving'        set of nodes shutting down gracefully (they do not count as survivors)
 *   P..'held:'..node    set of `app:user` keys with a session on that node
 *   P..'holders'        hash `app:user` -> how many nodes hold it (present = connected)
 *   P..'seq'            transition counter
 *   P..'by'             hash `app:user` -> the node that announced its last transition, and
 *   P..'byAt'           sorted set `app:user` -> when (ms); entries older than the announce window go
 *   channel P..'events' `seq\n1|0\napp:user\nannouncer` per transition, or `reap` (a node left: look now)
 *
 * Who announces: the node whose script made the transition, unless another live node announced the
 * same key's previous transition less than ANNOUNCE_WINDOW_MS before; that node announces this one
 * too (it hears it on the channel, in order). Without this, a survivor reaping a dead node's user
 * (offline) and the node where that user resumes a moment later (online) announced on two nodes at
 * once: each announcer's listeners read and publish asynchronously, so the reaper's offline could
 * be published after the resume's online and be the last word, with the user connected.
 * The shared keys get a one-day expiry, renewed on every heartbeat, so a cluster abandoned
 * without a clean shutdown does not leave them in Redis for ever.
 */

/** A key's transitions this close to its previous one are announced by the same (live) node. */
export const ANNOUNCE_WINDOW_MS = 3000;

/** Shared by the scripts: one transition, counted, given its announcer and published. */
const TRANSITION = `
local function transition(P, self, k, connected, out)
  local seq = redis.call('INCR', P..'seq')
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local by = self
  local last = redis.call('HGET', P..'by', k)
  local at = tonumber(redis.call('ZSCORE', P..'byAt', k) or '0')
  if last and last ~= self and now - at < ${ANNOUNCE_WINDOW_MS}
    and redis.call('SISMEMBER', P..'nodes', last) == 1 and redis.call('SISMEMBER', P..'leaving', last) == 0
    and redis.call('EXISTS', P..'alive:'..last) == 1 then
    by = last
  end
  local stale = redis.call('ZRANGEBYSCORE', P..'byAt', '-inf', now - ${ANNOUNCE_WINDOW_MS}, 'LIMIT', 0, 16)
  if #stale > 0 then
    redis.call('ZREM', P..'byAt', unpack(stale))
    redis.call('HDEL', P..'by', unpack(stale))
  end
  redis.call('HSET', P..'by', k, by)
  redis.call('ZADD', P..'byAt', now, k)
  redis.call('PUBLISH', P..'events', seq..'\\n'..connected..'\\n'..k..'\\n'..by)
  out[#out + 1] = seq
  out[#out + 1] = connected
  out[#out + 1] = k
  out[#out + 1] = by
end
local function hold(P, node, k, out)
  if redis.call('SADD', P..'held:'..node, k) == 1 and redis.call('HINCRBY', P..'holders', k, 1) == 1 then
    transition(P, node, k, 1, out)
  end
end
local function release(P, self, k, out)
  if redis.call('HINCRBY', P..'holders', k, -1) <= 0 then
    redis.call('HDEL', P..'holders', k)
    transition(P, self, k, 0, out)
  end
end
local function reap(P, self, node, out)
  redis.call('SREM', P..'nodes', node)
  redis.call('SREM', P..'leaving', node)
  for _, k in ipairs(redis.call('SMEMBERS', P..'held:'..node)) do release(P, self, k, out) end
  redis.call('DEL', P..'held:'..node, P..'alive:'..node)
end
`;

/**
 * ARGV: P, node, key. Returns [seq, 1, key, announcer] when the user became connected in the
 * cluster, [] when not, or [-1] when this node was reaped meanwhile (it must join again with all its keys).
 */
export const ATTACH = `${TRANSITION}
local P, node, k = ARGV[1], ARGV[2], ARGV[3]
if redis.call('SISMEMBER', P..'nodes', node) == 0 then return {-1} end
local out = {}
hold(P, node, k, out)
return out`;

/** ARGV: P, node, key. Returns [seq, 0, key, announcer] when the user is now connected nowhere, else []. */
export const DETACH = `${TRANSITION}
local P, node, k = ARGV[1], ARGV[2], ARGV[3]
local out = {}
if redis.call('SREM', P..'held:'..node, k) == 1 then release(P, node, k, out) end
return out`;

/**
 * ARGV: P, node, ttlMs, keepMs, key... Registers the node (again, after it was reaped) with every
 * key it holds. Returns [seq, 1, key, announcer, ...] for the users that became connected.
 */
export const JOIN = `${TRANSITION}
local P, node, ttl, keep = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
redis.call('SADD', P..'nodes', node)
redis.call('SET', P..'alive:'..node, '1', 'PX', ttl)
local out = {}
for i = 5, #ARGV do hold(P, node, ARGV[i], out) end
for _, key in ipairs({P..'nodes', P..'holders', P..'seq', P..'leaving', P..'by', P..'byAt', P..'held:'..node}) do redis.call('PEXPIRE', key, keep) end
return out`;

/**
 * ARGV: P, node, ttlMs, keepMs. Refreshes the node's liveness; returns 0 when it was reaped (its
 * entries are gone and their offline transitions announced: it must JOIN again), else 1.
 */
export const HEARTBEAT = `
local P, node, ttl, keep = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('SISMEMBER', P..'nodes', node) == 0 then return 0 end
redis.call('SET', P..'alive:'..node, '1', 'PX', ttl)
for _, key in ipairs({P..'nodes', P..'holders', P..'seq', P..'leaving', P..'by', P..'byAt', P..'held:'..node}) do redis.call('PEXPIRE', key, keep) end
return 1`;

/**
 * ARGV: P, node. Reaps every registered node whose liveness lapsed: its keys are released, and
 * the users nobody else holds go offline. Returns [seq, 0, key, announcer, ...] for those (the
 * script being atomic, no other node sees them); the announcer is this node, or the live node that
 * announced the key's previous transition within the window.
 */
export const REAP = `${TRANSITION}
local P, self = ARGV[1], ARGV[2]
local out = {}
for _, node in ipairs(redis.call('SMEMBERS', P..'nodes')) do
  if node ~= self and redis.call('EXISTS', P..'alive:'..node) == 0 then reap(P, self, node, out) end
end
return out`;

/**
 * ARGV: P, node, graceMs. Graceful shutdown. With survivors, the node's entries lapse after the
 * grace period (a player it sent elsewhere reconnects meanwhile without flickering offline) and a
 * survivor announces whoever did not come back. With none, there is nobody to tell: every dead or
 * leaving node's entries go at once, and the shared keys with them (their transitions are
 * published with no announcer: no node's listeners hear them). Returns 1 with survivors, else 0.
 */
export const LEAVE = `${TRANSITION}
local P, self, grace = ARGV[1], ARGV[2], tonumber(ARGV[3])
redis.call('SADD', P..'leaving', self)
local survivors = false
for _, node in ipairs(redis.call('SMEMBERS', P..'nodes')) do
  if node ~= self and redis.call('SISMEMBER', P..'leaving', node) == 0 and redis.call('EXISTS', P..'alive:'..node) == 1 then survivors = true end
end
if survivors then
  if grace > 0 then
    redis.call('SET', P..'alive:'..self, '1', 'PX', grace)
  else
    redis.call('DEL', P..'alive:'..self)
    redis.call('PUBLISH', P..'events', 'reap')
  end
  return 1
end
local out = {}
for _, node in ipairs(redis.call('SMEMBERS', P..'nodes')) do
  if node == self or redis.call('SISMEMBER', P..'leaving', node) == 1 or redis.call('EXISTS', P..'alive:'..node) == 0 then reap(P, '', node, out) end
end
if redis.call('SCARD', P..'nodes') == 0 then redis.call('DEL', P..'seq', P..'holders', P..'leaving', P..'by', P..'byAt') end
return 0`;
