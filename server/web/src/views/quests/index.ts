/** A game's quests in the web app (issue 15): the page the app shell routes to. */
export { QuestsPage } from './QuestsPage.tsx';
