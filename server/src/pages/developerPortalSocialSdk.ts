import { PRE_APPROVAL_BUDGETS } from '../applications/approval.ts';
import { html, hidden } from './html.ts';
import type { PortalSection } from './portalSection.ts';
import { sectionErrors } from './developerPortalParts.ts';

const APPROVAL_TEXT = {
  pre_approval: 'Pre-approval: lobby, message and channel-linking writes share small budgets across all your players.',
  requested: 'Production access requested: an operator will review it. Until then the pre-approval budgets apply.',
  approved: 'Approved: production budgets apply.',
} as const;

/** The social SDK switch, how to install the packages, and production access (approval). */
export const socialSdkSection: PortalSection = {
  id: 'social-sdk',
  title: 'Social SDK',
  render: ({ app, csrf, errors, origin }) => {
    const hours = PRE_APPROVAL_BUDGETS.write.windowMs / 3600_000;
    if (!app.social_sdk.enabled) {
      return html`${sectionErrors(errors)}<p>Friends, presence, invites, lobbies, messages and voice for your game, in the browser.</p>
<form method="post" action="/developers/applications/${app.id}/social-sdk">${hidden({ csrf, action: 'enable' })}<div class="actions"><button type="submit" id="enable-sdk">Enable the social SDK</button></div></form>`;
    }
    return html`${sectionErrors(errors)}<p class="badge badge-${app.social_sdk.approval}" id="approval-state">${APPROVAL_TEXT[app.social_sdk.approval]}</p>
<h3>Install</h3>
<pre class="code-block" id="install-snippet">npm install @social-layer/client
# and the adapter of your engine, with the in-game friends list and push-to-talk:
npm install @social-layer/phaser      # or @social-layer/babylon, @social-layer/playcanvas</pre>
<pre class="code-block">import { Client } from '@social-layer/client';
const client = new Client({ applicationId: '${app.id}', apiBase: '${origin}' });</pre>
<p class="small muted">Or start from a template: <code>npm create @social-layer/game my-game -- --engine phaser</code> (or <code>babylon</code>, <code>playcanvas</code>).</p>
<h3>Production access</h3>
<p class="small muted">Before approval, all your players together get ${PRE_APPROVAL_BUDGETS.write.limit} lobby and message writes per ${hours} hours and ${PRE_APPROVAL_BUDGETS['channel-linking'].limit} channel links per ${hours} hours: enough to build and test. Responses say which budget applied in <code>X-RateLimit-Budget</code>.</p>
${app.social_sdk.approval === 'pre_approval'
  ? html`<form method="post" action="/developers/applications/${app.id}/social-sdk">${hidden({ csrf, action: 'request-approval' })}<div class="actions"><button type="submit" id="request-approval">Request production access</button></div></form>`
  : ''}`;
  },
  async submit(form, { app, applications }) {
    const action = form.get('action');
    if (action === 'enable') {
      await applications.enableSocialSdk(app.id);
      return { notice: 'The social SDK is enabled.' };
    }
    if (action === 'request-approval') {
      await applications.requestProductionAccess(app.id);
      return { notice: 'Production access requested.' };
    }
    return { notice: 'Nothing changed.' };
  },
};
