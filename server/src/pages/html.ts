/** Escapes text for HTML element content and double-quoted attributes. */
export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A raw HTML fragment, already escaped, so templates can nest without double escaping. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** Tagged template: interpolated values are escaped unless they are Html (or arrays of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

function render(v: unknown): string {
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === undefined || v === null || v === false) return '';
  return esc(v);
}

/** The shell every platform page shares: one stylesheet, no scripts. */
export function page(title: string, body: Html, opts: { wide?: boolean; stylesheets?: string[] } = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${esc(title)} · Social Layer</title>
<link rel="stylesheet" href="/assets/platform.css">${(opts.stylesheets ?? []).map((href) => `\n<link rel="stylesheet" href="${esc(href)}">`).join('')}
</head>
<body>
<header class="top"><a class="brand" href="/account"><span class="logo">◆</span> Social Layer</a></header>
<main class="card${opts.wide ? ' wide' : ''}">
${body.text}
</main>
</body>
</html>`;
}

export function hidden(fields: Record<string, string | undefined>): Html {
  return new Html(
    Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
      .join('\n'),
  );
}

export const PLATFORM_CSS = `
:root { --bg: #0f1220; --card: #181c2f; --line: #2a3050; --text: #e8eaf6; --muted: #9aa3c7; --accent: #6c7bff; --accent2: #8f6cff; --danger: #ff6b81; --ok: #4fd1a5; }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--text);
  background: radial-gradient(1200px 600px at 10% -10%, #27305f 0%, transparent 60%), radial-gradient(900px 500px at 110% 10%, #3b2763 0%, transparent 55%), var(--bg); }
.top { padding: 18px 28px; }
.brand { color: var(--text); text-decoration: none; font-weight: 700; letter-spacing: .3px; font-size: 17px; }
.logo { color: var(--accent); }
.card { width: min(440px, calc(100% - 32px)); margin: 6vh auto; background: var(--card); border: 1px solid var(--line); border-radius: 16px; padding: 28px 30px; box-shadow: 0 20px 60px rgba(0,0,0,.35); }
.card.wide { width: min(720px, calc(100% - 32px)); }
h1 { font-size: 22px; margin: 0 0 6px; }
h2 { font-size: 16px; margin: 24px 0 10px; color: var(--muted); text-transform: uppercase; letter-spacing: .8px; font-weight: 600; }
p { margin: 8px 0; }
.muted { color: var(--muted); }
label { display: block; font-size: 13px; color: var(--muted); margin: 14px 0 6px; font-weight: 600; }
input[type=text], input[type=password], input[type=email] { width: 100%; padding: 11px 12px; border-radius: 10px; border: 1px solid var(--line); background: #10142a; color: var(--text); font-size: 15px; }
input:focus { outline: 2px solid var(--accent); border-color: transparent; }
.actions { display: flex; gap: 10px; margin-top: 22px; }
button, .button { flex: 1; padding: 11px 16px; border: 0; border-radius: 10px; font-weight: 700; font-size: 15px; cursor: pointer; color: white; text-align: center; text-decoration: none;
  background: linear-gradient(135deg, var(--accent), var(--accent2)); }
button.secondary { background: #262c4a; color: var(--text); }
button.danger { background: transparent; color: var(--danger); border: 1px solid var(--danger); flex: 0 0 auto; padding: 7px 12px; font-size: 13px; }
.error { background: rgba(255,107,129,.12); border: 1px solid rgba(255,107,129,.4); color: #ffc2cc; padding: 10px 12px; border-radius: 10px; margin: 12px 0; }
.notice { background: rgba(79,209,165,.1); border: 1px solid rgba(79,209,165,.4); color: #bff3e0; padding: 10px 12px; border-radius: 10px; margin: 12px 0; }
.app { display: flex; align-items: center; gap: 14px; margin: 6px 0 18px; }
.app .icon { width: 52px; height: 52px; border-radius: 14px; display: grid; place-items: center; font-weight: 800; font-size: 22px; background: linear-gradient(135deg, var(--accent), var(--accent2)); }
ul.scopes { list-style: none; padding: 0; margin: 10px 0; }
ul.scopes li { padding: 9px 0 9px 28px; border-bottom: 1px solid var(--line); position: relative; }
ul.scopes li::before { content: "✓"; position: absolute; left: 4px; color: var(--ok); font-weight: 700; }
ul.scopes code { color: var(--muted); font-size: 12px; margin-left: 6px; }
.games { list-style: none; padding: 0; margin: 0; }
.games li { display: flex; align-items: center; gap: 14px; padding: 12px 0; border-bottom: 1px solid var(--line); }
.games .icon { width: 40px; height: 40px; border-radius: 10px; display: grid; place-items: center; font-weight: 800; background: #262c4a; }
.games .grow { flex: 1; min-width: 0; }
.games form { margin: 0; }
.small { font-size: 13px; }
.code { font: 700 26px/1.2 ui-monospace, monospace; letter-spacing: 4px; text-align: center; padding: 12px; background: #10142a; border-radius: 10px; border: 1px dashed var(--line); }
a { color: #aab4ff; }
.row { display: flex; justify-content: space-between; align-items: center; gap: 12px; }
`;
