import type { ApplicationService, ApplicationWire } from '../applications/ApplicationService.ts';
import type { CommerceService } from '../commerce/index.ts';
import type { QuestService } from '../quests/QuestService.ts';
import type { Html } from './html.ts';

/**
 * One part of an application's portal page: what it shows and what its form does. A later
 * slice adds its settings (webhook events URL, interactions endpoint, activity URL mappings,
 * SKUs, emojis) as one more module in PORTAL_SECTIONS; the page and the routes need no change.
 */
export interface PortalSection {
  /** URL segment of the section's form (`/developers/applications/:id/<id>`) and its anchor. */
  id: string;
  title: string;
  render(view: SectionView): Html;
  /** Handles the section's form; throws ApiError (50035) when a field is refused. */
  submit(form: URLSearchParams, env: SectionEnv): Promise<SectionOutcome>;
}

export interface SectionView {
  app: ApplicationWire;
  csrf: string;
  /** This platform's public origin (for snippets that point a game at it). */
  origin: string;
  /** Field errors of this section's last submit, already worded for people. */
  errors?: string[];
}

export interface SectionEnv {
  app: ApplicationWire;
  applications: ApplicationService;
  /** SKUs (issue 14). */
  commerce?: CommerceService;
  /** Quests (issue 15). */
  quests?: QuestService;
}

/** A notice to show after saving, or a secret shown this once (never stored in clear). */
export type SectionOutcome = { notice: string } | { secret: { label: string; value: string } };
