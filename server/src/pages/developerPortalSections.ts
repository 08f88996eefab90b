import { botSection } from './developerPortalBot.ts';
import { gatewaySection } from './developerPortalGateway.ts';
import { generalSection } from './developerPortalGeneral.ts';
import { installSection } from './developerPortalInstall.ts';
import { oauth2Section } from './developerPortalOAuth2.ts';
import { socialSdkSection } from './developerPortalSocialSdk.ts';
import { webhooksSection } from './developerPortalWebhooks.ts';
import { interactionsSection } from './developerPortalInteractions.ts';
import { skusSection } from './developerPortalSkus.ts';
import { questsSection } from './developerPortalQuests.ts';
import { activitiesSection } from './developerPortalActivities.ts';
import type { PortalSection } from './portalSection.ts';

/** The portal page's sections, in page order; each is one module (the shape is portalSection.ts). */
export const PORTAL_SECTIONS: readonly PortalSection[] = [generalSection, oauth2Section, botSection, gatewaySection, installSection, socialSdkSection, webhooksSection, interactionsSection, skusSection, questsSection, activitiesSection];
