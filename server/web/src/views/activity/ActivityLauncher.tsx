import { useEffect } from 'preact/hooks';
import { onDispatch } from '../../api/GatewayClient.ts';
import { navigate } from '../../state/router.ts';

/**
 * Opens the activity page when the user's own interaction is answered with LAUNCH_ACTIVITY
 * (callback type 12, or an entry-point command with PLATFORM_LAUNCH_ACTIVITY): the interactions
 * service sends the user INTERACTION_LAUNCH_ACTIVITY {id, nonce, application_id, channel_id}.
 * Rendered once by the app shell; it shows nothing.
 */
export function ActivityLauncher() {
  useEffect(
    () =>
      onDispatch((event, data) => {
        if (event !== 'INTERACTION_LAUNCH_ACTIVITY') return;
        const d = data as { application_id?: unknown; channel_id?: unknown; guild_id?: unknown };
        if (typeof d.application_id !== 'string' || !/^\d{1,20}$/.test(d.application_id) || typeof d.channel_id !== 'string' || !/^\d{1,20}$/.test(d.channel_id)) return;
        const q = new URLSearchParams({ channel_id: d.channel_id, ...(typeof d.guild_id === 'string' && /^\d{1,20}$/.test(d.guild_id) ? { guild_id: d.guild_id } : {}) });
        history.pushState(null, '', `/app/activity/${d.application_id}?${q}`);
        navigate({ name: 'activity', applicationId: d.application_id }, true);
      }),
    [],
  );
  return null;
}
