/**
 * Shopware 6. Every variant is its own page at its own address (its SEO url); the configurator
 * (component/buy-widget/configurator.html.twig) switches between them: `form[data-variant-switch]`,
 * per group `.product-detail-configurator-group` with a title and radio inputs named by the group id,
 * `checked` on the option of the variant shown (`option.id in product.optionIds`), each labelled by a
 * `label[for]` that carries its name (select groups: `option[selected]`). The buy widget states the
 * variant in microdata (`meta[itemprop=price]`, `priceCurrency`, `link[itemprop=availability]`,
 * `meta[itemprop=url]` = the variant's address, `productID`, `sku`, `gtin13`) or, from 6.7, JSON-LD;
 * its list price is `.list-price-price`.
 */
import { attr, matcher, parentOf, queryAll, textOf, type Document, type Element } from './page.ts';
import { availabilityOf, structuredAmount } from './structured-values.ts';
import { higherThan, optionName, platformElements, text, type PageOffer, type PlatformOffers } from './offers-model.ts';

const isVariantSwitch = matcher('form[data-variant-switch]');

const hasClass = (element: Element, name: string) => (attr(element, 'class') ?? '').split(/\s+/).some((c) => c.startsWith(name));

/** The buy widget around the configurator: `.product-detail-buy`, or `-<elementId>` in a CMS layout. */
function buyWidget(form: Element): Element | null {
  let node: Element | null = form;
  while (node && !hasClass(node, 'product-detail-buy')) node = parentOf(node);
  return node;
}

function chosenOptions(form: Element): { options: Record<string, string>; params: Record<string, string> } {
  const options: Record<string, string> = {};
  const params: Record<string, string> = {};
  for (const group of queryAll(form, '.product-detail-configurator-group')) {
    const title = queryAll(group, '.product-detail-configurator-group-title')[0];
    const name = title ? optionName(textOf(title)) : null;
    const checked = queryAll(group, 'input[type="radio"][checked]')[0];
    const selected = queryAll(group, 'select option[selected]')[0];
    if (checked) {
      const id = attr(checked, 'id');
      const label = id ? queryAll(group, `label[for="${id.replace(/["\\]/g, '')}"]`)[0] : undefined;
      const value = label ? (text(attr(label, 'title')) ?? text(textOf(label))) : null;
      if (name && value) options[name] = value;
      if (attr(checked, 'name') && attr(checked, 'value')) params[attr(checked, 'name')!] = attr(checked, 'value')!;
    } else if (selected) {
      if (name && text(textOf(selected))) options[name] = text(textOf(selected))!;
      const select = parentOf(selected);
      if (select && attr(select, 'name') && attr(selected, 'value')) params[attr(select, 'name')!] = attr(selected, 'value')!;
    }
  }
  return { options, params };
}

function read(document: Document, page: { currency: string | null; stated: PageOffer[] }): PageOffer[] {
  const [form] = platformElements(document, isVariantSwitch);
  const widget = form ? buyWidget(form) : null;
  if (!form || !widget) return [];
  const { options, params } = chosenOptions(form);
  const stated = page.stated.length === 1 ? page.stated[0]! : null;
  const content = (selector: string) => {
    const found = queryAll(widget, selector)[0];
    return found ? text(attr(found, 'content') ?? attr(found, 'href') ?? textOf(found)) : null;
  };
  // Block prices (several quantities) are no single price of the variant.
  if (!stated && content('meta[itemprop="lowPrice"]')) return [];
  const currency = stated?.currency ?? content('meta[itemprop="priceCurrency"]') ?? page.currency;
  const price = stated?.price ?? structuredAmount(content('meta[itemprop="price"]'), currency)?.amount ?? null;
  if (price === null) return [];
  const listPrice = content('.list-price-price');
  const url = stated?.variant?.url ?? content('meta[itemprop="url"]');
  return [
    {
      source: stated ? stated.source : 'script-state',
      price,
      currency,
      availability: stated?.availability ?? availabilityOf(content('link[itemprop="availability"]')),
      regularPrice: stated?.regularPrice ?? higherThan(price, listPrice ? (structuredAmount(listPrice, currency)?.amount ?? null) : null),
      variant: {
        id: stated?.variant?.id ?? content('meta[itemprop="productID"]'),
        sku: stated?.variant?.sku ?? content('[itemprop="sku"]'),
        gtin: stated?.variant?.gtin ?? content('meta[itemprop="gtin13"]'),
        options,
        url,
      },
      selection: { platform: 'shopware', params, current: true },
    },
  ];
}

export const shopwareOffers: PlatformOffers = {
  platform: 'shopware',
  shownOnly: true,
  read,
  // A variant is selected by its own address, not by a parameter.
  pick: () => null,
  address: (page, offer) => (offer.variant?.url ? new URL(offer.variant.url, page) : null),
};
