/**
 * Whether the activity still runs (issue 17: a hung activity page must not stay a participant
 * forever). Every PING_MS the host pings the bridge page (`/.platform/activity-host`, on the
 * activity's origin, so it shares the activity's event loop: if the activity spins or froze, the
 * bridge cannot answer either); a ping unanswered for HUNG_MS means the activity is hung, and
 * `onHung` runs once (the page then leaves the instance and says so). Until the first answer the
 * allowance is FIRST_ANSWER_MS: the bridge page may still be loading (a slow link, a busy machine),
 * and a ping sent before its script runs is simply lost. Message events are not
 * throttled in background tabs, so a hidden but healthy activity keeps answering. A tab that is
 * gone altogether is the server's to notice (the web app's Gateway session ends).
 */
export const PING_MS = 5_000;
export const HUNG_MS = 20_000;
export const FIRST_ANSWER_MS = 60_000;

export function watchLiveness(bridge: Window, bridgeOrigin: string, onHung: () => void): { onMessage(e: MessageEvent): boolean; stop(): void } {
  let seq = 0;
  let pendingSince: number | null = null;
  let stopped = false;
  const started = Date.now();
  let answered = false;
  const timer = setInterval(() => {
    if (stopped) return;
    // Not answered yet (still loading): ask again, keeping the time of the first unanswered ping.
    if (pendingSince !== null && !answered) bridge.postMessage({ platform_ping: seq }, bridgeOrigin);
    if (pendingSince !== null) {
      if (Date.now() - pendingSince > HUNG_MS && (answered || Date.now() - started > FIRST_ANSWER_MS)) {
        stopped = true;
        clearInterval(timer);
        onHung();
      }
      return;
    }
    pendingSince = Date.now();
    bridge.postMessage({ platform_ping: ++seq }, bridgeOrigin);
  }, PING_MS);
  return {
    /** True for the bridge's pong (consumed here, not an SDK frame). */
    onMessage(e: MessageEvent): boolean {
      if (e.source !== bridge || e.origin !== bridgeOrigin) return false;
      const d = e.data as { platform_pong?: unknown } | null;
      if (typeof d !== 'object' || d === null || typeof d.platform_pong !== 'number') return false;
      if (d.platform_pong === seq) {
        pendingSince = null;
        answered = true;
      }
      return true;
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
