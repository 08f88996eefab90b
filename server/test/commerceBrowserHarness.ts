// Shared set-up of the commerce browser tests (commerceStoreBrowser, commercePremiumButtonBrowser):
// the web app built, a server with the renewal scheduler off and cheap password hashing, checkout in
// test mode (no payment provider), the game's bot logged in on discord.js v14 unmodified, and
// Debian's Chromium. Each file adds its own SKUs.
import { mkdirSync } from 'node:fs';
import { Client, Events, GatewayIntentBits } from 'discord.js';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../tools/testing/chromium.ts';
import { build } from '../web/build.mjs';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { RESULTS } from './webAppSignUp.ts';

export interface CommerceBrowserEnv {
  t: TestServer;
  browser: Browser;
  bot: Client;
  close(): Promise<void>;
}

export async function startCommerceBrowserEnv(): Promise<CommerceBrowserEnv> {
  mkdirSync(RESULTS, { recursive: true });
  await build();
  const t = await startTestServer({ accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } }, commerce: { scheduler: false } });
  await t.server.commerce.checkout.setTestMode(t.app.id, true);
  const bot = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: `${t.server.url}/api` } });
  const ready = new Promise<void>((r) => bot.once(Events.ClientReady, () => r()));
  await bot.login(t.app.botToken);
  await ready;
  const browser = await launchChromium();
  return {
    t,
    browser,
    bot,
    async close() {
      await browser.close();
      await bot.destroy();
      await t.close();
      cleanupTempDirs();
    },
  };
}
