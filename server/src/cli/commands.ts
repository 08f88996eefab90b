import { appsApprove, appsCreate, appsUpdate } from './apps.ts';
import type { CliCommand } from './command.ts';
import { companion } from './companion.ts';
import { appsApproveIntents, appsInstall, guildsCreate } from './guilds.ts';
import { guildsSetPremiumTier, usersSetPremium } from './premium.ts';
import { skusCreate } from './skus.ts';
import { start } from './start.ts';
import { tokensIssue } from './tokens.ts';
import { usersCreate } from './users.ts';
import { webhooksReplay } from './webhooks.ts';

/** Every admin CLI command, in the order `--help` lists them. Add a module, then one entry here. */
export const COMMANDS: CliCommand[] = [start, appsCreate, appsUpdate, appsApprove, usersCreate, usersSetPremium, tokensIssue, guildsCreate, guildsSetPremiumTier, appsInstall, appsApproveIntents, companion, webhooksReplay, skusCreate];
