import type { User } from '@social-layer/protocol';
import { companionSocketExists, RpcClient, RpcEvent } from '@social-layer/rpc';

/** Options of `ipcDesktopCompanion`: which companion to find and where. */
export interface IpcDesktopCompanionOptions {
  /** IPC name of the companion (`<name>-ipc-N`); default `social-layer`. */
  name?: string;
  /** Environment to find the socket directory in (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/**
 * The desktop companion over local RPC: the shape of the Client's `desktopCompanion` option
 * (DesktopCompanion), plus what only it can tell and do.
 */
export interface IpcDesktopCompanion {
  /** The player signed in to the companion for `applicationId` (READY's user), or null. */
  connectedUser(applicationId: string): Promise<User | null>;
  /** ACTIVITY_JOIN from the companion: `(applicationId, joinSecret)`; returns the unsubscribe function. */
  onActivityJoin(listener: (applicationId: string, joinSecret: string) => void): () => void;
  /** Whether a companion socket exists on this machine (the Client's isDiscordAppInstalled). */
  isInstalled(): boolean;
  /**
   * Rich presence through the companion (RPC SET_ACTIVITY for this process), for a game that
   * shows the player's desktop identity without a Gateway session of its own. `null` clears.
   */
  setActivity(applicationId: string, activity: object | null): Promise<void>;
  /** Closes the RPC connections (the companion then ends the activity they set). */
  close(): Promise<void>;
}

/**
 * Node only: the Client's `desktopCompanion` option backed by the local companion
 * (`social-layer companion`). One RPC connection per application, opened on first use and
 * kept, so that ACTIVITY_JOIN events can arrive on it; an application the player has not signed
 * in to on the companion (handshake refused) reads as "no desktop user".
 */
export function ipcDesktopCompanion(options: IpcDesktopCompanionOptions = {}): IpcDesktopCompanion {
  const connections = new Map<string, Promise<RpcClient | null>>();
  const joinListeners = new Set<(applicationId: string, joinSecret: string) => void>();

  const connection = (applicationId: string): Promise<RpcClient | null> => {
    let c = connections.get(applicationId);
    if (!c) {
      c = (async () => {
        if (!companionSocketExists(options)) return null;
        const rpc = new RpcClient({ clientId: applicationId, name: options.name, env: options.env });
        try {
          await rpc.connect();
        } catch {
          return null;
        }
        rpc.on('close', () => connections.delete(applicationId));
        rpc.on(RpcEvent.ActivityJoin, (data: { secret?: unknown }) => {
          if (typeof data?.secret === 'string') for (const l of joinListeners) l(applicationId, data.secret);
        });
        await rpc.request('SUBSCRIBE', {}, RpcEvent.ActivityJoin).catch(() => {});
        return rpc;
      })();
      connections.set(applicationId, c);
      // A refused or failed attempt is not cached: the companion may start later.
      void c.then((rpc) => {
        if (!rpc) connections.delete(applicationId);
      });
    }
    return c;
  };

  return {
    async connectedUser(applicationId: string): Promise<User | null> {
      const rpc = await connection(applicationId);
      return (rpc?.ready?.user as User | undefined) ?? null;
    },
    onActivityJoin(listener) {
      joinListeners.add(listener);
      return () => joinListeners.delete(listener);
    },
    isInstalled: () => companionSocketExists(options),
    async setActivity(applicationId, activity) {
      const rpc = await connection(applicationId);
      if (!rpc) throw new Error('No desktop companion is signed in for this application');
      await rpc.request('SET_ACTIVITY', activity ? { pid: process.pid, activity } : { pid: process.pid });
    },
    async close() {
      const all = [...connections.values()];
      connections.clear();
      for (const c of all) await (await c)?.close();
    },
  };
}
