import { type Html, hidden, html, page } from './html.ts';

/** Sign-in, sign-up and the account page (connected games). Plain forms, no scripts. */

export function signInPage(o: { next?: string; error?: string; login?: string }): string {
  return page(
    'Sign in',
    // Not "Welcome back": this page is also the first one a player arriving from a game's sign-in
    // or an invite sees, with no account yet.
    html`<h1>Sign in to Social Layer</h1>
<p class="muted">One account for your friends, chats and progress in every game. No account yet? <a href="/signup${o.next ? `?next=${encodeURIComponent(o.next)}` : ''}">Create one</a>.</p>
${o.error ? html`<div class="error" role="alert">${o.error}</div>` : ''}
<form method="post" action="/login">
${hidden({ next: o.next })}
<label for="login">Username</label>
<input type="text" id="login" name="login" autocomplete="username" required maxlength="32" value="${o.login ?? ''}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required maxlength="256">
<div class="actions"><button type="submit" id="sign-in">Sign in</button></div>
</form>
<p class="small muted">New here? <a href="/signup${o.next ? `?next=${encodeURIComponent(o.next)}` : ''}">Create an account</a></p>`,
  );
}

export function signUpPage(o: { next?: string; error?: string; login?: string; displayName?: string; email?: string }): string {
  return page(
    'Create an account',
    html`<h1>Create your account</h1>
<p class="muted">One account for your friends, chats and progress in every game on Social Layer.</p>
${o.error ? html`<div class="error" role="alert">${o.error}</div>` : ''}
<form method="post" action="/signup">
${hidden({ next: o.next })}
<label for="login">Username</label>
<input type="text" id="login" name="login" autocomplete="username" required minlength="2" maxlength="32" pattern="[A-Za-z0-9_.]{2,32}" value="${o.login ?? ''}">
<label for="display_name">Display name</label>
<input type="text" id="display_name" name="display_name" maxlength="32" value="${o.displayName ?? ''}">
<label for="email">Email (optional)</label>
<input type="email" id="email" name="email" autocomplete="email" maxlength="254" value="${o.email ?? ''}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="new-password" required minlength="8" maxlength="256">
<div class="actions"><button type="submit" id="sign-up">Create account</button></div>
</form>
<p class="small muted">Already have one? <a href="/login${o.next ? `?next=${encodeURIComponent(o.next)}` : ''}">Sign in</a></p>`,
  );
}

export interface ConnectedGame {
  id: string;
  name: string;
  scopes: string[];
  since: Date;
}

export function accountPage(o: { name: string; username: string; csrf: string; games: ConnectedGame[]; notice?: string }): string {
  const games: Html[] = o.games.map(
    (g) => html`<li data-application-id="${g.id}">
<div class="icon">${g.name.slice(0, 1).toUpperCase()}</div>
<div class="grow"><strong>${g.name}</strong><div class="small muted">Connected ${g.since.toISOString().slice(0, 10)} · ${g.scopes.join(', ')}</div></div>
<form method="post" action="/account/applications/${g.id}/unlink">${hidden({ csrf: o.csrf })}<button class="danger" type="submit" title="Unlink: the game keeps you as a guest">Unlink</button></form>
<form method="post" action="/account/applications/${g.id}/remove">${hidden({ csrf: o.csrf })}<button class="danger" type="submit" title="Remove the app's access">Remove app</button></form>
</li>`,
  );
  return page(
    'Your account',
    html`<div class="row"><div><h1>${o.name}</h1><p class="muted">@${o.username}</p></div>
<form method="post" action="/logout">${hidden({ csrf: o.csrf })}<button class="secondary" type="submit">Sign out</button></form></div>
${o.notice ? html`<div class="notice" role="status">${o.notice}</div>` : ''}
<h2 id="connected-games">Connected games</h2>
${o.games.length === 0 ? html`<p class="muted" id="no-games">No game is connected to your account yet.</p>` : html`<ul class="games" id="games">${games}</ul>`}
<p class="small muted">Unlinking a game signs it out and keeps your progress there as a guest account; removing the app only signs it out. A console or TV asking for a code? <a href="/activate">Enter it here</a>.</p>`,
    { wide: true },
  );
}

export function messagePage(title: string, message: string, status: 'error' | 'notice' = 'error'): string {
  return page(title, html`<h1>${title}</h1><div class="${status}" role="alert">${message}</div><p class="small"><a href="/account">Your account</a></p>`);
}
