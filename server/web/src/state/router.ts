import { useEffect, useState } from 'preact/hooks';
import { parseRoute, type Route, routePath } from './routes.ts';

export type { Route } from './routes.ts';

/** History-based navigation between the app's paths (state/routes.ts), without reloading the page. */
const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((l) => l()));

export function navigate(route: Route, replace = false): void {
  const path = routePath(route);
  if (path !== location.pathname) history[replace ? 'replaceState' : 'pushState'](null, '', path);
  listeners.forEach((l) => l());
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname));
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return route;
}
