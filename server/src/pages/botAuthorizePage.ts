import { hidden, html, page } from './html.ts';

/**
 * The bot authorization page (OAuth2 `bot` scope): pick a server you manage, see the permissions
 * the bot asks for. Its form posts to /oauth2/authorize/bot.
 */
export function botAuthorizePage(o: {
  appName: string;
  userName: string;
  guilds: { id: string; name: string }[];
  selected?: string;
  lockGuild: boolean;
  permissions: string[];
  /** What the user scopes asked for beside `bot` let the application do (a code follows). */
  userScopes?: string[];
  csrf: string;
  params: Record<string, string | undefined>;
  error?: string;
}): string {
  const options = o.guilds.filter((g) => !o.lockGuild || g.id === o.selected);
  return page(
    `Add ${o.appName}`,
    html`<div class="app"><div class="icon">${o.appName.slice(0, 1).toUpperCase()}</div><div><h1>${o.appName}</h1><p class="muted">wants to join a server of yours</p></div></div>
<p>Signed in as <strong>${o.userName}</strong>.</p>
${o.error ? html`<div class="error" role="alert">${o.error}</div>` : ''}
<form method="post" action="/oauth2/authorize/bot">
${hidden({ ...o.params, csrf: o.csrf })}
<label for="guild_id">Add to server</label>
${options.length === 0
  ? html`<p class="muted" id="no-guilds">You do not manage any server yet.</p>`
  : html`<select id="guild_id" name="guild_id">${options.map((g) => html`<option value="${g.id}"${g.id === o.selected ? ' selected' : ''}>${g.name}</option>`)}</select>`}
<p>It asks for these permissions:</p>
<ul class="scopes" id="permissions">${o.permissions.length === 0 ? html`<li>No permissions</li>` : o.permissions.map((p) => html`<li>${p}</li>`)}</ul>
${o.userScopes && o.userScopes.length > 0 ? html`<p>It also asks you to let it:</p>
<ul class="scopes" id="user-scopes">${o.userScopes.map((d) => html`<li>${d}</li>`)}</ul>` : ''}
<div class="actions">
<button class="secondary" type="submit" name="decision" value="deny" id="deny">Cancel</button>
<button type="submit" name="decision" value="allow" id="authorize"${options.length === 0 ? ' disabled' : ''}>Authorize</button>
</div>
</form>`,
  );
}
