// The activity's shop, all through the embedded SDK: getSkus lists what the application sells,
// startPurchase opens the platform's checkout over the activity, and ENTITLEMENT_CREATE tells the
// activity what the player now owns (the event, not the command's answer, is what a game should
// trust: a purchase finished in another window arrives the same way).
import type { DiscordSDK } from '@discord/embedded-app-sdk';

type Sku = Awaited<ReturnType<DiscordSDK['commands']['getSkus']>>['skus'][number];

const price = (sku: Sku) => (sku.price.amount / 100).toLocaleString('en', { style: 'currency', currency: sku.price.currency || 'USD' });

export class Store {
  /** SKU IDs the player was granted while the activity ran (ENTITLEMENT_CREATE). */
  readonly owned = new Set<string>();
  readonly #sdk: DiscordSDK;
  readonly #panel: HTMLElement;
  readonly #names = new Map<string, string>();

  constructor(sdk: DiscordSDK, button: HTMLButtonElement, panel: HTMLElement) {
    this.#sdk = sdk;
    this.#panel = panel;
    button.addEventListener('click', () => void (panel.hidden ? this.open() : this.close()));
    void sdk.subscribe('ENTITLEMENT_CREATE', (event: { entitlement: { sku_id: string } }) => {
      this.owned.add(event.entitlement.sku_id);
      this.#render();
    });
  }

  async open(): Promise<void> {
    this.#panel.hidden = false;
    this.#panel.replaceChildren(Object.assign(document.createElement('p'), { textContent: 'Loading the shop…' }));
    try {
      const { skus } = await this.#sdk.commands.getSkus();
      for (const sku of skus) this.#names.set(sku.id, sku.name);
      this.#render(skus);
    } catch (error) {
      this.#panel.replaceChildren(Object.assign(document.createElement('p'), { textContent: `The shop is closed: ${(error as Error).message ?? error}` }));
    }
  }

  close(): void {
    this.#panel.hidden = true;
  }

  #skus: Sku[] = [];

  #render(skus = this.#skus): void {
    this.#skus = skus;
    if (this.#panel.hidden) return;
    const rows = skus.map((sku) => {
      const li = document.createElement('li');
      li.dataset.skuId = sku.id;
      const name = Object.assign(document.createElement('span'), { textContent: `${sku.name} · ${price(sku)}` });
      const owned = this.owned.has(sku.id);
      const buy = Object.assign(document.createElement('button'), { type: 'button', className: 'buy', textContent: owned ? 'Owned' : 'Buy', disabled: owned });
      buy.addEventListener('click', () => void this.#buy(sku.id, buy));
      li.append(name, buy);
      return li;
    });
    const list = document.createElement('ul');
    list.append(...rows);
    const close = Object.assign(document.createElement('button'), { type: 'button', className: 'close', textContent: 'Close' });
    close.addEventListener('click', () => this.close());
    this.#panel.replaceChildren(Object.assign(document.createElement('h2'), { textContent: 'Shop' }), rows.length ? list : Object.assign(document.createElement('p'), { textContent: 'Nothing for sale yet.' }), close);
  }

  async #buy(skuId: string, button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    try {
      await this.#sdk.commands.startPurchase({ sku_id: skuId });
    } catch {
      // Closing the checkout rejects; the button comes back.
    }
    this.#render();
  }
}
