import type { APIAttachment, APIEmbed, APIGuildMember, APIMessage } from 'discord-api-types/v10';
import { useState } from 'preact/hooks';
import { PremiumButton } from '../store/index.ts';
import { ComponentButton, ComponentSelect } from '../interactions/index.ts';
import { displayName, formatSize, isImage, isSpoiler, parseContent, type ContentPart } from './messageModel.ts';

/**
 * The pieces a message is drawn from: content (mentions, spoilers), attachments (image previews,
 * spoilers blurred until clicked), embeds and components. Content is only ever text nodes; a URL
 * from a message becomes a link only when it is http(s).
 */

export interface NameBook {
  members: readonly APIGuildMember[];
  /** Users met in messages (authors, mentions), for mentions of people not in the member list. */
  users: ReadonlyMap<string, { id: string; username: string; global_name?: string | null }>;
  channels: ReadonlyMap<string, string>;
  roles: ReadonlyMap<string, string>;
}

export function safeUrl(url: string | undefined): string | undefined {
  return url && /^https?:\/\//i.test(url) ? url : undefined;
}

/** Same-origin media only: the page's CSP (img-src 'self') would block any other, so those are links. */
function sameOrigin(url: string | undefined): boolean {
  if (!url) return false;
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

function Spoiler({ children }: { children: preact.ComponentChildren }) {
  const [shown, setShown] = useState(false);
  return (
    <span
      class={`spoiler${shown ? ' spoiler-shown' : ''}`}
      data-spoiler={shown ? 'revealed' : 'hidden'}
      role="button"
      tabIndex={0}
      aria-label={shown ? undefined : 'Spoiler, select to show'}
      onClick={() => setShown(true)}
      onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && setShown(true)}
    >
      <span class="spoiler-text">{children}</span>
    </span>
  );
}

function Parts({ parts, names }: { parts: ContentPart[]; names: NameBook }) {
  return (
    <>
      {parts.map((p, i) => {
        switch (p.kind) {
          case 'text':
            return p.text;
          case 'user': {
            const u = names.users.get(p.id);
            return <span key={i} class="mention">@{u ? displayName({ id: u.id, username: u.username, global_name: u.global_name ?? null }, names.members) : 'unknown-user'}</span>;
          }
          case 'role':
            return <span key={i} class="mention">@{names.roles.get(p.id) ?? 'unknown-role'}</span>;
          case 'channel':
            return <span key={i} class="mention">#{names.channels.get(p.id) ?? 'unknown'}</span>;
          case 'everyone':
            return <span key={i} class="mention">{p.text}</span>;
          case 'spoiler':
            return <Spoiler key={i}><Parts parts={p.parts} names={names} /></Spoiler>;
        }
      })}
    </>
  );
}

export function Content({ text, names, class: cls = 'msg-content' }: { text: string; names: NameBook; class?: string }) {
  if (!text) return null;
  return <div class={cls}><Parts parts={parseContent(text)} names={names} /></div>;
}

function Attachment({ a }: { a: APIAttachment }) {
  const spoiler = isSpoiler(a);
  const [shown, setShown] = useState(!spoiler);
  const image = isImage(a) && sameOrigin(a.url);
  const label = a.description ?? a.filename;
  return (
    <div
      class={`att${spoiler ? ' att-spoiler' : ''}${shown ? ' att-shown' : ''}`}
      data-attachment-id={a.id}
      data-spoiler={spoiler ? (shown ? 'revealed' : 'hidden') : undefined}
      onClick={spoiler && !shown ? (e) => { e.preventDefault(); setShown(true); } : undefined}
    >
      {image ? (
        <a href={shown ? a.url : undefined} target="_blank" rel="noopener noreferrer" class="att-image-link">
          <img class="att-image" src={a.url} alt={label} loading="lazy" width={a.width ?? undefined} height={a.height ?? undefined} />
        </a>
      ) : (
        <a class="att-file" href={shown ? a.url : undefined} target="_blank" rel="noopener noreferrer" download={a.filename}>
          <span class="att-file-name">{a.filename}</span>
          <span class="muted small">{formatSize(a.size)}</span>
        </a>
      )}
      {spoiler && !shown && <span class="att-spoiler-label"><span>Spoiler</span></span>}
    </div>
  );
}

export function Attachments({ list }: { list: readonly APIAttachment[] }) {
  if (list.length === 0) return null;
  return <div class="atts">{list.map((a) => <Attachment key={a.id} a={a} />)}</div>;
}

function Embed({ e, names }: { e: APIEmbed; names: NameBook }) {
  const color = e.color !== undefined ? `#${e.color.toString(16).padStart(6, '0')}` : undefined;
  const image = e.image?.url ?? e.thumbnail?.url;
  return (
    <div class="embed" style={color ? { borderLeftColor: color } : undefined} data-embed>
      {e.author?.name && <div class="embed-author small">{safeUrl(e.author.url) ? <a href={safeUrl(e.author.url)} target="_blank" rel="noopener noreferrer">{e.author.name}</a> : e.author.name}</div>}
      {e.title && <div class="embed-title">{safeUrl(e.url) ? <a href={safeUrl(e.url)} target="_blank" rel="noopener noreferrer">{e.title}</a> : e.title}</div>}
      {e.description && <Content text={e.description} names={names} class="embed-description" />}
      {e.fields && e.fields.length > 0 && (
        <div class="embed-fields">
          {e.fields.map((f, i) => (
            <div key={i} class={`embed-field${f.inline ? ' embed-field-inline' : ''}`}>
              <div class="embed-field-name">{f.name}</div>
              <Content text={f.value} names={names} class="embed-field-value" />
            </div>
          ))}
        </div>
      )}
      {image && (sameOrigin(image) ? <img class="embed-image" src={image} alt="" loading="lazy" /> : safeUrl(image) && <a class="small" href={safeUrl(image)} target="_blank" rel="noopener noreferrer">Image</a>)}
      {(e.footer?.text || e.timestamp) && <div class="embed-footer small muted">{[e.footer?.text, e.timestamp ? new Date(e.timestamp).toLocaleString() : null].filter(Boolean).join(' · ')}</div>}
    </div>
  );
}

export function Embeds({ list, names }: { list: readonly APIEmbed[]; names: NameBook }) {
  if (list.length === 0) return null;
  return <div class="embeds">{list.map((e, i) => <Embed key={i} e={e} names={names} />)}</div>;
}

interface ButtonLike { type: number; style?: number; label?: string; url?: string; sku_id?: string; disabled?: boolean; components?: ButtonLike[]; placeholder?: string; custom_id?: string }

/**
 * Legacy action rows: link buttons open their URL, premium buttons the store's checkout; other
 * buttons and selects are shown but inactive (interactions are the commands issue's).
 */
export function Components({ list }: { list: readonly unknown[] }) {
  const rows = (list as ButtonLike[]).filter((c) => c.type === 1);
  if (rows.length === 0) return null;
  return (
    <div class="msg-components">
      {rows.map((row, i) => (
        <div key={i} class="msg-component-row">
          {(row.components ?? []).map((c, j) => {
            if (c.type === 2 && c.style === 5 && safeUrl(c.url)) return <a key={j} class="ui-button ui-button-secondary" href={safeUrl(c.url)} target="_blank" rel="noopener noreferrer">{c.label ?? c.url}</a>;
            if (c.type === 2 && c.style === 6 && c.sku_id) return <PremiumButton key={j} skuId={c.sku_id} disabled={c.disabled ?? false} />;
            // Interactive buttons and selects send MESSAGE_COMPONENT interactions (issue 13, views/interactions).
            if (c.type === 2) return <ComponentButton key={j} c={c} />;
            return <ComponentSelect key={j} c={c} />;
          })}
        </div>
      ))}
    </div>
  );
}

/** The author line's name for a message. */
export function authorName(m: APIMessage, names: NameBook): string {
  return displayName(m.author, names.members);
}

/** Inline SVG icons: emoji glyphs depend on the machine's fonts (a blank box where none is installed). */
export function MsgIcon({ name }: { name: 'pin' | 'react' }) {
  return name === 'pin' ? (
    <svg class="ui-icon" viewBox="0 0 24 24" width="15" height="15" aria-hidden="true">
      <path fill="currentColor" d="M15 3l6 6-2 1-3 3 .5 4.5-1.5 1.5-4-4-5 5H5v-1l5-5-4-4L7.5 8.5 12 9l3-3z" />
    </svg>
  ) : (
    <svg class="ui-icon" viewBox="0 0 24 24" width="15" height="15" aria-hidden="true">
      <circle cx="11" cy="12" r="8" fill="none" stroke="currentColor" stroke-width="2" />
      <path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" d="M7.5 14a4 4 0 0 0 7 0M8.5 9.5h.01M13.5 9.5h.01" />
    </svg>
  );
}
