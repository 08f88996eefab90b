import { render } from 'preact';
import { GatewayClient } from './api/GatewayClient.ts';
import { RestClient } from './api/RestClient.ts';
import { goToSignIn, sessionToken, SignedOut } from './api/session.ts';
import { AppState } from './state/AppState.ts';
import { App } from './views/App.tsx';
import './styles.css';

/**
 * The web app's entry: get the session token (from the signed-in account cookie, same-origin
 * only), then render. Everything after goes through the public REST API and Gateway.
 */
async function boot(): Promise<void> {
  const root = document.getElementById('app')!;
  try {
    await sessionToken();
  } catch (e) {
    if (e instanceof SignedOut) return goToSignIn();
    root.textContent = 'Could not start the app. Reload the page to try again.';
    return;
  }
  root.textContent = '';
  render(<App store={new AppState(new RestClient())} gateway={new GatewayClient()} />, root);
}

void boot();
