/**
 * The memory protocol between the gateway-idle orchestrator and a measured server process: the
 * orchestrator asks over IPC, the process collects garbage twice (it runs with --expose-gc) so the
 * figure is what is live, and answers with process.memoryUsage().
 */
export interface MemoryFigures {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

export function answerMemoryRequests(extra: () => Record<string, unknown> = () => ({})): void {
  process.on('message', (msg: { type?: string }) => {
    if (msg?.type !== 'memory') return;
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    const m = process.memoryUsage();
    process.send!({ type: 'memory', memory: { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers }, ...extra() });
  });
}
