import type { Client, GuildChannel } from '@social-layer/client';

/**
 * "Link channel" for a signed-in player (linked channels, issue 12): pick one of your guilds and
 * one of its text channels you manage, and the lobby's chat is mirrored both ways with it (the
 * chat panel then says "Linked to #channel"). Guests have no guilds, so they do not see it.
 * Linking needs the CanLinkLobby lobby member flag, which only the game's backend can grant (the
 * server API); without it the link is refused and the panel says why. Plain DOM, beside the
 * player bar: the scene has nothing to do with it.
 */
export class LinkChannelPanel {
  readonly element: HTMLElement;
  readonly #client: Client;
  readonly #lobbyId: string;
  readonly #button: HTMLButtonElement;
  readonly #dialog: HTMLElement;
  readonly #guilds: HTMLSelectElement;
  readonly #channels: HTMLSelectElement;
  readonly #status: HTMLElement;
  readonly #link: HTMLButtonElement;
  readonly #unlink: HTMLButtonElement;
  #channelList: GuildChannel[] = [];
  readonly #off: (() => void)[] = [];

  constructor(client: Client, lobbyId: string, parent: HTMLElement) {
    this.#client = client;
    this.#lobbyId = lobbyId;
    const doc = parent.ownerDocument;
    const make = <K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string) => {
      const e = doc.createElement(tag);
      e.className = className;
      if (text !== undefined) e.textContent = text;
      return e;
    };
    this.element = make('div', 'link-channel');
    this.#button = make('button', 'link-channel-open', 'Link channel');
    this.#button.type = 'button';
    this.#dialog = make('div', 'link-channel-dialog');
    this.#dialog.hidden = true;
    this.#dialog.setAttribute('role', 'dialog');
    this.#dialog.setAttribute('aria-label', 'Link this lobby to a server channel');
    this.#guilds = make('select', 'link-channel-guild');
    this.#guilds.setAttribute('aria-label', 'Server');
    this.#channels = make('select', 'link-channel-channel');
    this.#channels.setAttribute('aria-label', 'Channel');
    this.#link = make('button', 'link-channel-link', 'Link');
    this.#unlink = make('button', 'link-channel-unlink', 'Unlink');
    this.#status = make('p', 'link-channel-status');
    this.#status.setAttribute('role', 'status');
    const row = make('div', 'link-channel-row');
    row.append(this.#guilds, this.#channels, this.#link, this.#unlink);
    this.#dialog.append(row, this.#status);
    this.element.append(this.#button, this.#dialog);
    parent.append(this.element);
    injectStyle(doc);

    this.#button.addEventListener('click', () => void this.#toggle());
    this.#guilds.addEventListener('change', () => void this.#loadChannels());
    this.#channels.addEventListener('change', () => this.#warn());
    this.#link.addEventListener('click', () => void this.#doLink());
    this.#unlink.addEventListener('click', () => void this.#doUnlink());
    this.#off.push(client.on('lobbyUpdated', (id) => id === lobbyId && this.#showState()));
    this.#off.push(client.on('userUpdated', () => this.#showState()));
    this.#showState();
  }

  destroy(): void {
    for (const off of this.#off.splice(0)) off();
    this.element.remove();
  }

  /** Only full accounts have guilds; the button follows sign-in. */
  #showState(): void {
    const user = this.#client.getCurrentUserV2();
    this.element.hidden = !user || user.isProvisional;
    const linked = this.#client.getLobbyHandle(this.#lobbyId)?.linkedChannel();
    this.#button.textContent = linked ? `#${linked.name}` : 'Link channel';
    this.#button.title = linked ? 'This lobby\'s chat is linked to a server channel' : 'Link this lobby\'s chat to a channel of a server you manage';
    this.#unlink.hidden = !linked;
  }

  async #toggle(): Promise<void> {
    this.#dialog.hidden = !this.#dialog.hidden;
    if (this.#dialog.hidden) return;
    this.#status.textContent = 'Loading your servers…';
    try {
      const guilds = await this.#client.getUserGuilds();
      this.#guilds.replaceChildren(...guilds.map((g) => new Option(g.name, g.id)));
      if (guilds.length === 0) {
        this.#status.textContent = 'You are in no server yet.';
        return;
      }
      await this.#loadChannels();
    } catch (error) {
      this.#status.textContent = `Could not load your servers: ${message(error)}`;
    }
  }

  async #loadChannels(): Promise<void> {
    const guildId = this.#guilds.value;
    this.#channelList = await this.#client.getGuildChannels(guildId);
    const linkable = this.#channelList.filter((c) => c.isLinkable || c.linkedLobby?.lobbyId === this.#lobbyId);
    this.#channels.replaceChildren(...linkable.map((c) => new Option(`#${c.name}${c.isViewableAndWriteableByAllMembers ? '' : ' (private)'}`, c.id)));
    this.#link.disabled = linkable.length === 0;
    this.#status.textContent = linkable.length === 0 ? 'No channel here you may link (you need Manage Channels).' : '';
    this.#warn();
  }

  /** A private channel becomes readable and writable by every lobby member once linked. */
  #warn(): void {
    const channel = this.#channelList.find((c) => c.id === this.#channels.value);
    if (channel && !channel.isViewableAndWriteableByAllMembers) this.#status.textContent = 'Private channel: every lobby member will read and write it.';
  }

  async #doLink(): Promise<void> {
    const channelId = this.#channels.value;
    if (!channelId) return;
    this.#link.disabled = true;
    try {
      await this.#client.linkChannelToLobby(this.#lobbyId, channelId);
      this.#status.textContent = `Linked to #${this.#client.getLobbyHandle(this.#lobbyId)?.linkedChannel()?.name ?? ''}.`;
      this.#dialog.hidden = true;
    } catch (error) {
      this.#status.textContent = `Not linked: ${message(error)}`;
    } finally {
      this.#link.disabled = false;
      this.#showState();
    }
  }

  async #doUnlink(): Promise<void> {
    try {
      await this.#client.unlinkChannelFromLobby(this.#lobbyId);
      this.#status.textContent = 'Unlinked.';
    } catch (error) {
      this.#status.textContent = `Not unlinked: ${message(error)}`;
    }
    this.#showState();
  }
}

function message(error: unknown): string {
  const code = (error as { errorCode?: number }).errorCode;
  if (code === 50013) return 'you may not link this lobby (the game grants that) or lack Manage Channels there';
  return error instanceof Error ? error.message : String(error);
}

function injectStyle(doc: Document): void {
  if (doc.getElementById('link-channel-style')) return;
  const style = doc.createElement('style');
  style.id = 'link-channel-style';
  style.textContent = `
.link-channel { position: relative; display: inline-block; margin: 0 8px; }
.link-channel[hidden], .link-channel [hidden] { display: none; }
.link-channel-open { font: inherit; padding: 4px 10px; border-radius: 8px; border: 1px solid #3a4260; background: #1d2335; color: #eef0f7; cursor: pointer; }
.link-channel-dialog { position: absolute; z-index: 30; top: calc(100% + 6px); left: 0; min-width: 300px; padding: 10px; border-radius: 10px; background: #161a28; border: 1px solid #3a4260; box-shadow: 0 8px 24px rgba(0,0,0,.45); }
.link-channel-row { display: flex; gap: 6px; flex-wrap: wrap; }
.link-channel-row select, .link-channel-row button { font: inherit; padding: 4px 6px; border-radius: 6px; border: 1px solid #3a4260; background: #0f1220; color: #eef0f7; }
.link-channel-status { margin: 8px 0 0; font-size: 12px; color: #9aa1b8; }
.link-channel-status:empty { display: none; }
`;
  doc.head.append(style);
}
