import { createHash } from 'node:crypto';
import type { Availability, EventOf } from '../../events/catalogue.ts';
import { alertStream } from '../../events/alert.ts';
import { checkpointOf, reached, type Checkpoint, type EventStore, type NewEvent, type RecordedEvent } from '../../events/store.ts';
import type { Projection } from '../../projections/projection.ts';
import { standingMessage, standingOf } from '../../domain/alerts.ts';
import { hostOf } from '../../domain/shops.ts';

/**
 * Raises `undercut` and `cheapest` alerts: the owner's own product against the competitor
 * products linked to it. A reactor like the alert rules' (api/alerts/reactor.ts): a batch, its
 * AlertRaised events and the checkpoint in one transaction, never rebuilt. It keeps its own state
 * (own products, links, competitors' last prices and stated availability) rather than the read
 * models, which may be ahead of or behind its checkpoint.
 *
 * A competitor counts as on the catalogue screen (domain/position.ts): linked, with a price in the
 * own price's currency as its page stated it, and its page did not last say OutOfStock. Whether
 * that price is fresh is a matter of the clock, not of events, so this reactor does not judge it
 * (the screen does). An own product is undercut when a counted competitor is below its price;
 * it is not judged (null) until a competitor first counts, and a tie is not undercut.
 *
 * After each event, in log order, every own product it touches is judged again. News raises:
 * a competitor's price (observed or typed in), its stock (a check's stated availability), and the
 * owner's price. Then not undercut (or not judged) -> undercut raises `undercut`, naming the
 * cheapest competitor below; undercut -> not raises `cheapest`, naming the cheapest competitor that
 * counts, or the one that was undercutting when it went out of stock (a change of currency leaves
 * nothing to compare, and raises nothing). Changes of what is compared (a link made or ended, a
 * product removed, a past price corrected by a fixed parser) are judged silently: they are the
 * owner's doing, or no change in the shops.
 */

type Handled =
  | EventOf<'ProductAdded'>
  | EventOf<'ProductEdited'>
  | EventOf<'ProductRemoved'>
  | EventOf<'PriceObserved'>
  | EventOf<'PriceManuallySet'>
  | EventOf<'PriceCorrected'>
  | EventOf<'PriceCheckFailed'>
  | EventOf<'OwnProductImported'>
  | EventOf<'OwnProductChanged'>
  | EventOf<'OwnPriceChanged'>
  | EventOf<'OwnProductRemoved'>
  | EventOf<'CompetitorLinked'>
  | EventOf<'CompetitorUnlinked'>;

type OwnState = {
  own_product_id: string;
  user_id: string;
  title: string;
  price: number;
  currency: string;
  /** Null until a competitor first counts. */
  undercut: boolean | null;
  /** While undercut: the cheapest competitor below. */
  undercut_by: string | null;
};

type CompetitorState = {
  product_id: string;
  user_id: string;
  name: string;
  url: string;
  image_url: string | null;
  price: number | null;
  currency: string | null;
  price_position: number | null;
  /** The last availability a page stated; null until one does. */
  availability: Availability | null;
};

type Link = { own_product_id: string; product_id: string };
type Trigger = { eventType: 'PriceObserved' | 'PriceManuallySet' | 'PriceCheckFailed' | 'OwnPriceChanged' | 'OwnProductImported'; at: string };

/** One alert per triggering event and own product: one observation can move two own products. */
export function standingAlertIdFor(triggerPosition: number, ownProductId: string): string {
  const h = createHash('sha256').update(`alert:${triggerPosition}:standing:${ownProductId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const COMPETITOR_EVENTS = new Set([
  'ProductAdded',
  'ProductEdited',
  'ProductRemoved',
  'PriceObserved',
  'PriceManuallySet',
  'PriceCorrected',
  'PriceCheckFailed',
]);

export function standingAlertsReactor(store: EventStore): Projection {
  return {
    name: 'standing-alerts',
    tables: ['standing_own_products', 'standing_links', 'standing_competitors', 'standing_applied'],
    ddl: `
      CREATE TABLE IF NOT EXISTS standing_own_products (
        own_product_id text PRIMARY KEY,
        user_id        text NOT NULL,
        title          text NOT NULL,
        price          double precision NOT NULL,
        currency       text NOT NULL,
        undercut       boolean,
        undercut_by    text
      );
      CREATE TABLE IF NOT EXISTS standing_links (
        own_product_id text NOT NULL,
        product_id     text NOT NULL,
        PRIMARY KEY (own_product_id, product_id)
      );
      CREATE INDEX IF NOT EXISTS standing_links_product ON standing_links (product_id);
      CREATE TABLE IF NOT EXISTS standing_competitors (
        product_id     text PRIMARY KEY,
        user_id        text NOT NULL,
        name           text NOT NULL,
        url            text NOT NULL,
        image_url      text,
        price          double precision,
        currency       text,
        price_position bigint,
        availability   text
      );
      -- The last event applied, in commit order: a batch applied again changes nothing.
      CREATE TABLE IF NOT EXISTS standing_applied (
        id             boolean PRIMARY KEY DEFAULT true CHECK (id),
        transaction_id text NOT NULL,
        position       bigint NOT NULL
      );`,
    appends: true,
    handles: [
      'ProductAdded',
      'ProductEdited',
      'ProductRemoved',
      'PriceObserved',
      'PriceManuallySet',
      'PriceCorrected',
      'PriceCheckFailed',
      'OwnProductImported',
      'OwnProductChanged',
      'OwnPriceChanged',
      'OwnProductRemoved',
      'CompetitorLinked',
      'CompetitorUnlinked',
    ],

    async apply(tx, recorded) {
      const [mark] = await tx<{ transaction_id: string; position: string }[]>`SELECT transaction_id, position FROM standing_applied`;
      const applied: Checkpoint | null = mark ? { transactionId: mark.transaction_id, position: Number(mark.position) } : null;
      const events = (recorded as RecordedEvent<Handled>[]).filter((e) => !applied || !reached(applied, checkpointOf(e)));
      if (!events.length) return;

      const ownIds0 = new Set<string>(),
        productIds0 = new Set<string>();
      for (const e of events) {
        if ('ownProductId' in e.data) ownIds0.add(e.data.ownProductId);
        if ('productId' in e.data) productIds0.add(e.data.productId);
      }
      const links = await tx<Link[]>`
        SELECT own_product_id, product_id FROM standing_links
        WHERE own_product_id = ANY(${[...ownIds0]}::text[])
           OR own_product_id IN (SELECT own_product_id FROM standing_links WHERE product_id = ANY(${[...productIds0]}::text[]))`;
      const ownIds = [...new Set([...ownIds0, ...links.map((l) => l.own_product_id)])];
      const productIds = [...new Set([...productIds0, ...links.map((l) => l.product_id)])];
      const owns = new Map(
        (await tx<OwnState[]>`SELECT * FROM standing_own_products WHERE own_product_id = ANY(${ownIds}::text[])`).map((o) => [o.own_product_id, o]),
      );
      const competitors = new Map(
        (await tx<CompetitorState[]>`SELECT * FROM standing_competitors WHERE product_id = ANY(${productIds}::text[])`).map((c) => [
          c.product_id,
          { ...c, price_position: c.price_position === null ? null : Number(c.price_position) },
        ]),
      );

      const linksOf = new Map<string, Set<string>>(),
        linkedTo = new Map<string, Set<string>>();
      const add = (map: Map<string, Set<string>>, key: string, value: string) => {
        const set = map.get(key) ?? new Set<string>();
        set.add(value);
        map.set(key, set);
      };
      const link = (ownId: string, productId: string) => {
        add(linksOf, ownId, productId);
        add(linkedTo, productId, ownId);
      };
      const unlink = (ownId: string, productId: string) => {
        linksOf.get(ownId)?.delete(productId);
        linkedTo.get(productId)?.delete(ownId);
      };
      for (const l of links) link(l.own_product_id, l.product_id);

      const ownsChanged = new Set<string>(),
        ownsRemoved = new Set<string>(),
        linksChanged = new Set<string>(),
        competitorsChanged = new Set<string>(),
        competitorsRemoved = new Set<string>();
      const alerts = new Map<string, NewEvent[]>();

      const counted = (o: OwnState) =>
        [...(linksOf.get(o.own_product_id) ?? [])]
          .map((id) => competitors.get(id))
          .filter((c): c is CompetitorState & { price: number } => !!c && c.price !== null && c.currency === o.currency && c.availability !== 'OutOfStock')
          // The cheapest first; ties by id, so the same state always names the same competitor.
          .sort((a, b) => a.price - b.price || a.product_id.localeCompare(b.product_id));

      const raise = (o: OwnState, c: CompetitorState & { price: number }, type: 'undercut' | 'cheapest', e: RecordedEvent, trigger: Trigger) => {
        const standing = standingOf(
          { ownProductId: o.own_product_id, title: o.title, price: o.price },
          { name: c.name, host: hostOf(c.url) ?? '', price: c.price },
        );
        const list = alerts.get(o.user_id) ?? [];
        list.push({
          // Raised from backfilled history: shown in the app like any alert, but not news to e-mail.
          ...(e.metadata.backfill ? { metadata: { backfill: true } } : {}),
          type: 'AlertRaised',
          data: {
            alertId: standingAlertIdFor(e.position, o.own_product_id),
            userId: o.user_id,
            productId: c.product_id,
            type,
            productName: c.name,
            productUrl: c.url,
            productImage: c.image_url,
            previousPrice: o.price,
            currentPrice: c.price,
            currency: o.currency,
            changePercent: null,
            thresholdPercent: null,
            message: standingMessage(type, standing, o.currency, { outOfStock: c.availability === 'OutOfStock' }),
            trigger: { eventType: trigger.eventType, position: e.position, at: trigger.at },
            standing,
          },
        });
        alerts.set(o.user_id, list);
      };

      /** Judges an own product again; `trigger` when the event is news that may raise an alert. */
      const judge = (o: OwnState, e: RecordedEvent, trigger: Trigger | null) => {
        const ranked = counted(o);
        if (o.undercut === null && !ranked.length) return;
        const cheapest = ranked[0];
        const undercut = cheapest !== undefined && cheapest.price < o.price;
        const was = o.undercut,
          by = o.undercut_by === null ? undefined : competitors.get(o.undercut_by);
        o.undercut = undercut;
        o.undercut_by = undercut ? cheapest.product_id : null;
        ownsChanged.add(o.own_product_id);
        if (!trigger) return;
        if (undercut && was !== true) raise(o, cheapest, 'undercut', e, trigger);
        else if (!undercut && was === true) {
          if (cheapest) raise(o, cheapest, 'cheapest', e, trigger);
          else if (by && by.price !== null && by.currency === o.currency && by.availability === 'OutOfStock') {
            raise(o, { ...by, price: by.price }, 'cheapest', e, trigger);
          }
        }
      };
      const judgeLinkedTo = (productId: string, e: RecordedEvent, trigger: Trigger | null) => {
        for (const ownId of linkedTo.get(productId) ?? []) {
          const o = owns.get(ownId);
          if (o) judge(o, e, trigger);
        }
      };
      const clearLinks = (ownId: string) => {
        for (const productId of [...(linksOf.get(ownId) ?? [])]) unlink(ownId, productId);
        linksChanged.add(ownId);
      };

      for (const e of events) {
        if (COMPETITOR_EVENTS.has(e.type) && 'productId' in e.data) {
          const productId = e.data.productId;
          if (e.type === 'ProductAdded') {
            const d = e.data;
            competitors.set(productId, {
              product_id: productId,
              user_id: d.userId,
              name: d.name,
              url: d.url,
              image_url: d.imageUrl,
              price: null,
              currency: null,
              price_position: null,
              availability: null,
            });
            competitorsRemoved.delete(productId);
            competitorsChanged.add(productId);
            continue;
          }
          const c = competitors.get(productId);
          if (!c) continue;
          competitorsChanged.add(productId);
          switch (e.type) {
            case 'ProductEdited':
              Object.assign(c, { name: e.data.name, url: e.data.url });
              break;
            case 'ProductRemoved':
              competitors.delete(productId);
              competitorsRemoved.add(productId);
              for (const ownId of [...(linkedTo.get(productId) ?? [])]) {
                unlink(ownId, productId);
                linksChanged.add(ownId);
                const o = owns.get(ownId);
                if (o) judge(o, e, null);
              }
              break;
            case 'PriceObserved': {
              const d = e.data;
              if (d.imageUrl) c.image_url = d.imageUrl;
              if (d.availability !== null) c.availability = d.availability;
              // A page that states no currency is in the one it stated before; never stated, it is not compared.
              c.currency = d.currency ?? c.currency;
              c.price = d.price;
              c.price_position = e.position;
              judgeLinkedTo(productId, e, { eventType: 'PriceObserved', at: d.observedAt });
              break;
            }
            case 'PriceManuallySet':
              if (!(e.data.price > 0)) break; // as the products read model: a typed 0 is no price
              c.price = e.data.price;
              c.currency = e.data.currency;
              c.price_position = e.position;
              judgeLinkedTo(productId, e, { eventType: 'PriceManuallySet', at: e.recordedAt.toISOString() });
              break;
            case 'PriceCorrected':
              if (c.price_position === e.data.correctsPosition) {
                c.price = e.data.price;
                judgeLinkedTo(productId, e, null);
              }
              break;
            case 'PriceCheckFailed':
              if (e.data.availability === null) break; // the page did not say: nothing changes
              c.availability = e.data.availability;
              judgeLinkedTo(productId, e, { eventType: 'PriceCheckFailed', at: e.data.attemptedAt });
              break;
          }
          continue;
        }
        if (!('ownProductId' in e.data)) continue;
        const ownId = e.data.ownProductId;
        if (e.type === 'OwnProductImported') {
          const d = e.data;
          const o: OwnState = {
            own_product_id: ownId,
            user_id: d.userId,
            title: d.title,
            price: d.price,
            currency: d.currency,
            undercut: null,
            undercut_by: null,
          };
          owns.set(ownId, o);
          ownsRemoved.delete(ownId);
          ownsChanged.add(ownId);
          // A product back in its source starts afresh: its old links went with it.
          clearLinks(ownId);
          judge(o, e, { eventType: 'OwnProductImported', at: d.at });
          continue;
        }
        const o = owns.get(ownId);
        if (!o) continue;
        ownsChanged.add(ownId);
        switch (e.type) {
          case 'OwnProductChanged':
            o.title = e.data.title;
            break;
          case 'OwnPriceChanged':
            o.price = e.data.price;
            o.currency = e.data.currency;
            judge(o, e, { eventType: 'OwnPriceChanged', at: e.data.at });
            break;
          case 'OwnProductRemoved':
            owns.delete(ownId);
            ownsRemoved.add(ownId);
            clearLinks(ownId);
            break;
          case 'CompetitorLinked':
            link(ownId, e.data.productId);
            linksChanged.add(ownId);
            judge(o, e, null);
            break;
          case 'CompetitorUnlinked':
            unlink(ownId, e.data.productId);
            linksChanged.add(ownId);
            judge(o, e, null);
            break;
        }
      }

      await save(tx, {
        owns: [...ownsChanged].filter((id) => !ownsRemoved.has(id)).map((id) => owns.get(id)!),
        ownsRemoved: [...ownsRemoved],
        links: [...linksChanged],
        linkRows: [...linksChanged].flatMap((own) => [...(linksOf.get(own) ?? [])].map((product) => ({ own_product_id: own, product_id: product }))),
        competitors: [...competitorsChanged].filter((id) => !competitorsRemoved.has(id)).map((id) => competitors.get(id)!),
        competitorsRemoved: [...competitorsRemoved],
        applied: checkpointOf(events[events.length - 1]!),
      });
      // A fixed order of streams keeps two writers from waiting on each other.
      const users = [...alerts.keys()].sort();
      await Promise.all(users.map((userId) => store.append(alertStream(userId), 'any', alerts.get(userId)!, tx)));
    },
  };
}

type Changes = {
  owns: OwnState[];
  ownsRemoved: string[];
  /** Own products whose links are replaced by `linkRows`. */
  links: string[];
  linkRows: Link[];
  competitors: CompetitorState[];
  competitorsRemoved: string[];
  applied: Checkpoint;
};

async function save(tx: Parameters<Projection['apply']>[0], c: Changes) {
  if (c.ownsRemoved.length) await tx`DELETE FROM standing_own_products WHERE own_product_id = ANY(${c.ownsRemoved}::text[])`;
  if (c.owns.length) {
    await tx`
      INSERT INTO standing_own_products SELECT * FROM jsonb_populate_recordset(NULL::standing_own_products, ${tx.json(c.owns as never)})
      ON CONFLICT (own_product_id) DO UPDATE SET title = EXCLUDED.title, price = EXCLUDED.price, currency = EXCLUDED.currency,
        undercut = EXCLUDED.undercut, undercut_by = EXCLUDED.undercut_by`;
  }
  if (c.links.length) await tx`DELETE FROM standing_links WHERE own_product_id = ANY(${c.links}::text[])`;
  if (c.competitorsRemoved.length) {
    await tx`DELETE FROM standing_competitors WHERE product_id = ANY(${c.competitorsRemoved}::text[])`;
    await tx`DELETE FROM standing_links WHERE product_id = ANY(${c.competitorsRemoved}::text[])`;
  }
  if (c.linkRows.length) {
    await tx`
      INSERT INTO standing_links SELECT * FROM jsonb_populate_recordset(NULL::standing_links, ${tx.json(c.linkRows as never)})
      ON CONFLICT DO NOTHING`;
  }
  if (c.competitors.length) {
    await tx`
      INSERT INTO standing_competitors SELECT * FROM jsonb_populate_recordset(NULL::standing_competitors, ${tx.json(c.competitors as never)})
      ON CONFLICT (product_id) DO UPDATE SET name = EXCLUDED.name, url = EXCLUDED.url, image_url = EXCLUDED.image_url, price = EXCLUDED.price,
        currency = EXCLUDED.currency, price_position = EXCLUDED.price_position, availability = EXCLUDED.availability`;
  }
  await tx`
    INSERT INTO standing_applied (transaction_id, position) VALUES (${c.applied.transactionId}, ${c.applied.position})
    ON CONFLICT (id) DO UPDATE SET transaction_id = EXCLUDED.transaction_id, position = EXCLUDED.position`;
}
