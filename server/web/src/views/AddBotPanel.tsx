import { useState } from 'preact/hooks';
import { Panel, TextField } from '../components/ui.tsx';

/**
 * Adding a bot to this guild: the platform's bot authorization page (/oauth2/authorize with the
 * `bot` scope) with this guild preselected and locked. That page shows the application and the
 * permissions it asks for, and is where the user consents; it is a server page with its own CSRF
 * and Origin checks, so the app links to it instead of re-implementing the consent.
 */
export function AddBotPanel({ guildId, onClose }: { guildId: string; onClose: () => void }) {
  const [appId, setAppId] = useState('');
  const [permissions, setPermissions] = useState('0');
  const valid = /^\d{17,20}$/.test(appId) && /^\d{1,20}$/.test(permissions);
  const href = `/oauth2/authorize?${new URLSearchParams({ client_id: appId, scope: 'bot', permissions, guild_id: guildId, disable_guild_select: 'true' })}`;
  return (
    <Panel
      title="Add a bot"
      id="add-bot-panel"
      actions={
        <button type="button" class="ui-button ui-button-ghost" onClick={onClose}>
          Close
        </button>
      }
    >
      <div class="stack">
        <TextField id="bot-app-id" label="Application ID" value={appId} onInput={(v) => setAppId(v.trim())} inputMode="numeric" placeholder="From the developer portal" />
        <TextField id="bot-permissions" label="Permissions (integer)" value={permissions} onInput={(v) => setPermissions(v.trim())} inputMode="numeric" />
        <div class="actions">
          {valid ? (
            <a class="ui-button ui-button-primary" id="authorize-bot" href={href}>
              Continue to authorization
            </a>
          ) : (
            <span class="ui-button ui-button-primary ui-button-disabled" aria-disabled="true">
              Continue to authorization
            </span>
          )}
        </div>
      </div>
    </Panel>
  );
}
