import { spawn } from 'node:child_process';

/** Opens a URL with the desktop's handler (xdg-open, open, start); failures are silent (the URL is also printed). */
export function openBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]] : process.platform === 'darwin' ? ['open', [url]] : ['xdg-open', [url]];
  try {
    const child = spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No desktop handler: the printed URL is the way.
  }
}
